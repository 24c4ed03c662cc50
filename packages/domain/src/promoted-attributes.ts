/** The span columns an attribute's value can be promoted to. */
export const PROMOTED_COLUMNS = ['input', 'output', 'tool_arguments', 'input_messages', 'output_messages', 'system_instructions'] as const;
export type PromotedColumn = (typeof PROMOTED_COLUMNS)[number];

/** Values shorter than this are left in place: the saving would not pay for the reference. */
const MIN_PROMOTED_LENGTH = 64;

/**
 * Stores each large text once. An attribute whose value became one of the span's columns
 * verbatim (`input.value` as the input text, `gen_ai.tool.call.arguments` as the tool
 * arguments, `gen_ai.input.messages` already in the stored message shape…) is left out of
 * the attribute map and recorded as a reference to that column; reads put it back. Prompts
 * and completions are most of a span's bytes, so this keeps rows small: less for the engine
 * to parse, compress and store.
 *
 * Normalization asks while it flattens the attributes (attributes.ts), so a promoted key is
 * never written to the map and then deleted (a delete turns the map into a slow dictionary).
 */
export class Promotion {
  /** Attribute key → the column that holds its value. */
  readonly refs: Record<string, PromotedColumn> = {};
  /** Only columns long enough to be worth a reference can match: usually none or two. */
  private readonly candidates: PromotedColumn[] = [];

  constructor(private readonly columns: Readonly<Record<PromotedColumn, string>>) {
    for (const column of PROMOTED_COLUMNS) if (columns[column].length >= MIN_PROMOTED_LENGTH) this.candidates.push(column);
  }

  /** Whether the attribute's (flattened) text is a column's value; records the reference when it is. */
  take(key: string, text: string): boolean {
    if (text.length < MIN_PROMOTED_LENGTH) return false;
    for (const column of this.candidates) {
      if (text !== this.columns[column]) continue;
      this.refs[key] = column;
      return true;
    }
    return false;
  }
}

/** The inverse of the promotion, for reads: the attribute map as it was sent. */
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
