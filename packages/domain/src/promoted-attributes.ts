/** The span columns an attribute's value can be promoted to. */
export const PROMOTED_COLUMNS = ['input', 'output', 'tool_arguments', 'input_messages', 'output_messages', 'system_instructions'] as const;
export type PromotedColumn = (typeof PROMOTED_COLUMNS)[number];

/** Values shorter than this are left in place: the saving would not pay for the reference. */
const MIN_PROMOTED_LENGTH = 64;

/**
 * Stores each large text once. An attribute whose value became one of the span's columns
 * verbatim (`input.value` as the input text, `gen_ai.tool.call.arguments` as the tool
 * arguments, `gen_ai.input.messages` already in the stored message shape…) is removed from
 * the attribute map and recorded as a reference to that column; reads put it back. Prompts
 * and completions are most of a span's bytes, so this keeps rows small: less for the engine
 * to parse, compress and store.
 *
 * Mutates `attributes`; returns the references (attribute key → column).
 */
export function promoteAttributes(
  attributes: Record<string, string>,
  columns: Record<PromotedColumn, string>,
): Record<string, PromotedColumn> {
  const refs: Record<string, PromotedColumn> = {};
  // Only columns long enough to be worth a reference can match: usually none or two.
  const candidates: PromotedColumn[] = [];
  for (const column of PROMOTED_COLUMNS) if (columns[column].length >= MIN_PROMOTED_LENGTH) candidates.push(column);
  if (candidates.length === 0) return refs;
  for (const key in attributes) {
    const value = attributes[key]!;
    if (value.length < MIN_PROMOTED_LENGTH) continue;
    for (const column of candidates) {
      if (value !== columns[column]) continue;
      refs[key] = column;
      delete attributes[key];
      break;
    }
  }
  return refs;
}

/** The inverse of `promoteAttributes`, for reads: the attribute map as it was sent. */
export function restoreAttributes(
  attributes: Record<string, string>,
  refs: Record<string, string>,
  columns: Partial<Record<PromotedColumn, string>>,
): Record<string, string> {
  const restored = { ...attributes };
  for (const key in refs) {
    const column = refs[key] as PromotedColumn;
    const value = columns[column];
    if (value !== undefined) restored[key] = value;
  }
  return restored;
}
