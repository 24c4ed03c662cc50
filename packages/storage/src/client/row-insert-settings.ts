/**
 * The settings of every insert of encoded rows (Storage.insertRows: spans, span log records,
 * GenAI metric points), on both engines.
 *
 * `optimize_on_insert = 0`: the engine does not collapse the rows of a block by their key
 * before writing its part. For a ReplacingMergeTree that pass copies every row of the
 * sorted block into new columns, big texts included (ClickHouse's
 * MergeTreeDataWriter::mergeBlock); for span rows it was more than half the engine's CPU
 * per inserted row (`BENCH_ONLY=table npm run bench:engine`, docs/benchmarks.md). Nothing
 * depends on it: each of these tables is read with FINAL (or DISTINCT), which collapses
 * rows of one key whichever part holds them, as it does for a span sent again in a later
 * block; merges collapse them on disk. span_hour_writes counts the inserted rows either
 * way (its view reads the block as sent).
 *
 * `insert_deduplication_token`: see Storage.insertRows.
 */
export function rowInsertSettings(token?: string): { optimize_on_insert: 0; insert_deduplication_token?: string } {
  return token === undefined ? { optimize_on_insert: 0 } : { optimize_on_insert: 0, insert_deduplication_token: token };
}
