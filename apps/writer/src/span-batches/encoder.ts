import { UnrecoverableError } from 'bullmq';
import type { PriceTable } from '@aos/domain';
import { parseIngestJobPayload, type IngestJobPayload, type SpanBatchPayload, type SpanRowsPayload } from '@aos/queue';
import { encodeSpanBatch, type EncodedSpanBatch, type SpanRowsFormat } from '@aos/storage';

/** A job's rows ready for the batcher, and what follows once they are stored. */
export interface EncodedBatch extends Omit<EncodedSpanBatch, 'format'> {
  /** The chunk's format: RowBinary, or JSONCompactEachRow in jobs queued by older versions. */
  format: SpanRowsFormat;
  projectId: string;
  /** When ingest received the export (for the writer's lag). */
  receivedAtMs: number;
  /** The job, when its rows wait under a rows key (they can be read again from Redis). */
  jobId?: string;
  /** The insert block an earlier attempt sent the rows in (insert-blocks.ts). */
  insertBlock?: string | null;
}

/** The payload of an ingest job in whichever shape it was queued; one of the wrong shape never succeeds, so it goes straight to the dead letters. */
export function parseSpanBatchJob(data: unknown): IngestJobPayload {
  try {
    return parseIngestJobPayload(data);
  } catch (err) {
    throw new UnrecoverableError(`invalid span batch payload: ${(err as Error).message}`);
  }
}

/**
 * Turns a job queued by an older version into rows for the batcher: rows inline in the
 * job's JSON are taken as they are (JSONCompactEachRow, in UTF-8); a decoded export is
 * normalized and encoded here (RowBinary, as ingest encodes it now). Pure CPU work, so it can run on the main thread or a worker thread.
 */
export function createSpanBatchEncoder(opts: { prices: PriceTable; maxValueBytes: number }) {
  return (payload: SpanRowsPayload | SpanBatchPayload): EncodedBatch => {
    const { projectId, receivedAtMs } = payload;
    if ('rows' in payload) {
      const { rows, rowCount, deploymentIds, traceIds, telemetryScores } = payload;
      return { projectId, receivedAtMs, chunk: Buffer.from(rows), format: 'JSONCompactEachRow', rows: rowCount, deploymentIds, traceIds, telemetryScores };
    }
    const batch = encodeSpanBatch(payload.export, {
      projectId,
      receivedAtMs,
      prices: opts.prices,
      maxValueBytes: opts.maxValueBytes,
      ...(payload.dimensionKeys ? { dimensionKeys: payload.dimensionKeys } : {}),
      ...(payload.maskedRules ? { maskedRules: payload.maskedRules } : {}),
    });
    return { projectId, receivedAtMs, ...batch };
  };
}
