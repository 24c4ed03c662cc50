/** The span columns an attribute's value can be promoted to. */
export type PromotedColumn = 'input' | 'output' | 'tool_arguments';

/** Values shorter than this are left in place: the saving would not pay for the reference. */
const MIN_PROMOTED_LENGTH = 64;

/**
 * Stores each large text once. An attribute whose value became the span's input, output
 * or tool arguments verbatim (`input.value`, `gen_ai.input.messages`, `ai.prompt`…) is
 * removed from the attribute map and recorded as a reference to that column; reads put it
 * back. Prompts and completions are most of a span's bytes, so this makes the row about a
 * third smaller, which is a third less for the engine to parse, compress and store.
 *
 * Mutates `attributes`; returns the references (attribute key → column).
 */
export function promoteAttributes(
  attributes: Record<string, string>,
  columns: Record<PromotedColumn, string>,
): Record<string, PromotedColumn> {
  const refs: Record<string, PromotedColumn> = {};
  for (const key in attributes) {
    const value = attributes[key]!;
    if (value.length < MIN_PROMOTED_LENGTH) continue;
    const column =
      value === columns.input ? 'input' : value === columns.output ? 'output' : value === columns.tool_arguments ? 'tool_arguments' : undefined;
    if (column === undefined) continue;
    refs[key] = column;
    delete attributes[key];
  }
  return refs;
}

/** The inverse of `promoteAttributes`, for reads: the attribute map as it was sent. */
export function restoreAttributes(
  attributes: Record<string, string>,
  refs: Record<string, string>,
  columns: Record<PromotedColumn, string>,
): Record<string, string> {
  const restored = { ...attributes };
  for (const key in refs) {
    const column = refs[key] as PromotedColumn;
    if (column in columns) restored[key] = columns[column];
  }
  return restored;
}
