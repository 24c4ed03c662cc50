import { JOINED_FIELDS, foldLogRecords, type SpanRow } from '@aos/domain';
import { encodeSpanRowsRowBinary, insertEncodedSpans, readSpanLogRecords, readSpanRows, spanKey, spansWithLogRecords, type SpanKey, type Storage } from '@aos/storage';

/**
 * Joins GenAI event log records to their spans, whichever arrives first.
 *
 * Records are kept in their own table (span_log_records) and never written into a span by
 * ingest: a span and its records come in separate requests, in any order, through
 * separate queues. Each side, once its own rows are stored, looks for the other:
 *   - after a batch of records is stored, the spans they name that are already stored;
 *   - after a batch of spans is stored, the records already stored for them.
 * Both sides store before they look, so whichever stores second sees the first: no
 * interleaving leaves a span without its records. A found pair becomes a new version of
 * the span row (ingested_at above the stored one; ReplacingMergeTree and every read's
 * FINAL show only the newest), with the records folded into its messages and texts. A
 * replayed batch of either kind folds the same records again and yields the same columns,
 * so replays add no duplicates and change nothing; a span sent again is folded again.
 *
 * Folds run one after another in this process, so each reads the row the previous one
 * wrote: two folds of one span can never race each other's version.
 */
export function createSpanLogJoin(opts: { storage: Storage; maxValueBytes: number }) {
  let chain: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = chain.then(work);
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    /** Folds the stored records of these traces' stored spans into them; a no-op when none has records. */
    async join(projectId: string, traceIds: readonly string[]): Promise<void> {
      const keys = await spansWithLogRecords(opts.storage, projectId, traceIds);
      if (keys.length === 0) return;
      await serially(() => foldStored(opts.storage, projectId, keys, opts.maxValueBytes));
    },
  };
}
export type SpanLogJoin = ReturnType<typeof createSpanLogJoin>;

async function foldStored(storage: Storage, projectId: string, keys: readonly SpanKey[], maxValueBytes: number): Promise<void> {
  const rows = await readSpanRows(storage, projectId, keys);
  if (rows.length === 0) return; // the spans have not arrived: they fold their records when they do
  const records = await readSpanLogRecords(storage, projectId, rows.map((r) => ({ traceId: r.trace_id, spanId: r.span_id })));
  const now = Date.now();
  const changed: SpanRow[] = [];
  for (const row of rows) {
    const folded = foldLogRecords(row, records.get(spanKey(row.trace_id, row.span_id)) ?? [], maxValueBytes);
    // A replay folds to the row already stored: no new version for it.
    if (sameFold(row, folded)) continue;
    // Above the stored version, and above what a replay of the span's batch would carry.
    changed.push({ ...folded, ingested_at: Math.max(Number(row.ingested_at) + 1, now) });
  }
  if (changed.length > 0) await insertEncodedSpans(storage, [encodeSpanRowsRowBinary(changed)], 'RowBinary');
}

function sameFold(a: SpanRow, b: SpanRow): boolean {
  return (
    JOINED_FIELDS.every((field) => a[field] === b[field]) &&
    a.log_record_fields.join() === b.log_record_fields.join() &&
    a.quality_flags.join() === b.quality_flags.join()
  );
}
