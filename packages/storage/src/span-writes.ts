import type { SpanRow } from '@aos/domain';
import type { Storage } from './client.ts';

/**
 * Encodes spans as JSONEachRow text. The writer encodes each job's rows as it processes
 * the job, so the cost is spread over the jobs instead of blocking the event loop once
 * per (large) insert.
 */
export function encodeSpanRows(rows: readonly SpanRow[]): string {
  let body = '';
  for (const row of rows) body += `${JSON.stringify(row)}\n`;
  return body;
}

/**
 * Inserts blocks of encoded spans as one insert. Replaying the same rows is harmless:
 * the table collapses equal keys and every read uses FINAL.
 */
export async function insertEncodedSpans(storage: Storage, chunks: readonly string[]): Promise<void> {
  if (chunks.length === 0) return;
  await storage.insertJsonEachRow('spans', chunks.length === 1 ? chunks[0]! : chunks.join(''));
}
