import type { SpanRow } from '@aos/domain';
import type { RowsBody, Storage } from '../client/client.ts';

/** The columns of `spans` in the order rows are encoded, in either format. */
export const SPAN_COLUMNS = [
  'project_id', 'trace_id', 'span_id', 'parent_span_id', 'name', 'kind', 'span_type',
  'start_time', 'end_time', 'duration_ms', 'status', 'status_message', 'service_name',
  'environment', 'platform', 'scope_name', 'scope_version', 'agent_name', 'model', 'provider',
  'input', 'output', 'input_messages', 'output_messages', 'system_instructions', 'input_tokens', 'output_tokens', 'total_tokens', 'cached_input_tokens',
  'reasoning_tokens', 'cost', 'cost_source', 'session_id', 'user_id', 'tool_name',
  'tool_arguments', 'tool_call_id', 'time_to_first_token_ms', 'attributes', 'attribute_refs', 'resource_attributes',
  'events', 'links', 'quality_flags', 'masked_rules', 'dimensions', 'log_record_fields', 'ingested_at',
] as const satisfies readonly (keyof SpanRow)[];

// Every SpanRow field must be a column: this fails to compile when one is missing.
type MissingColumns = Exclude<keyof SpanRow, (typeof SPAN_COLUMNS)[number]>;
const _allColumnsListed: MissingColumns extends never ? true : MissingColumns = true;
void _allColumnsListed;

/**
 * The formats span rows are queued and inserted in: RowBinary (span-rowbinary.ts) since
 * issue 33; JSONCompactEachRow in jobs queued by older versions, which the writer still takes.
 */
export type SpanRowsFormat = 'RowBinary' | 'JSONCompactEachRow';

/**
 * Encodes spans as JSONCompactEachRow text (arrays, no repeated key names): the rows of jobs
 * queued before RowBinary, and the benchmarks' comparison with it.
 */
export function encodeSpanRows(rows: readonly SpanRow[]): string {
  let body = '';
  const values: unknown[] = new Array(SPAN_COLUMNS.length);
  for (const row of rows) {
    for (let i = 0; i < SPAN_COLUMNS.length; i++) values[i] = row[SPAN_COLUMNS[i]!];
    body += `${JSON.stringify(values)}\n`;
  }
  return body;
}

/**
 * Inserts blocks of encoded spans, all in `format`, as one insert. With a `token`, the same rows sent again
 * with it store nothing (the writer's replay of a block, apps/writer/src/span-batches/insert-blocks.ts);
 * without one, replayed rows are stored again and collapse into their key on merges and
 * in every read's FINAL.
 */
export async function insertEncodedSpans(storage: Storage, rows: RowsBody, format: SpanRowsFormat, token?: string): Promise<void> {
  if (rows.length === 0) return;
  await storage.insertRows('spans', SPAN_COLUMNS, format, rows, 'spans.write', token);
}
