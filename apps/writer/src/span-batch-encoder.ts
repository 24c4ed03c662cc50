import { UnrecoverableError } from 'bullmq';
import type { PriceTable } from '@aos/domain';
import { parseIngestJobPayload, type IngestJobPayload } from '@aos/queue';
import { encodeSpanBatch, type EncodedSpanBatch } from '@aos/storage';

/** A job's rows ready for the batcher, and what follows once they are stored. */
export interface EncodedBatch extends EncodedSpanBatch {
  projectId: string;
  /** When ingest received the export (for the writer's lag). */
  receivedAtMs: number;
}

/**
 * Turns one ingest job into rows for the batcher. Ingest queues rows ready to insert, taken
 * as they are; a job queued by an older version carries the decoded export, which is
 * normalized and encoded here. Pure CPU work, so it can run on the main thread or a worker thread.
 */
export function createSpanBatchEncoder(opts: { prices: PriceTable; maxValueBytes: number }) {
  return (data: unknown): EncodedBatch => {
    let payload: IngestJobPayload;
    try {
      payload = parseIngestJobPayload(data);
    } catch (err) {
      // A payload of the wrong shape will never succeed: straight to the dead letters.
      throw new UnrecoverableError(`invalid span batch payload: ${(err as Error).message}`);
    }
    const { projectId, receivedAtMs } = payload;
    if ('rows' in payload) {
      const { rows, rowCount, deploymentIds, traceIds, telemetryScores } = payload;
      return { projectId, receivedAtMs, chunk: rows, rows: rowCount, deploymentIds, traceIds, telemetryScores };
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
