import type { SpanRow } from '@aos/domain';
import type { Storage } from './client.ts';

/**
 * Inserts normalized spans in one block. Replaying the same rows is harmless: the
 * table collapses equal keys and every read uses FINAL.
 */
export async function insertSpanRows(storage: Storage, rows: readonly SpanRow[]): Promise<void> {
  if (rows.length === 0) return;
  let body = '';
  for (const row of rows) body += `${JSON.stringify(row)}\n`;
  await storage.insertJsonEachRow('spans', body);
}
