import { UnrecoverableError } from 'bullmq';
import { spanRowsFromExport, telemetryScoresOf, type PriceTable, type TelemetryScore } from '@aos/domain';
import type { OtlpTraceExport } from '@aos/otlp';
import { parseSpanBatchPayload } from '@aos/queue';
import { encodeSpanRows } from '@aos/storage';

/** A processed batch: its rows as JSONEachRow text, and how many there are. */
export interface EncodedBatch {
  projectId: string;
  /** When ingest received the export (for the writer's lag). */
  receivedAtMs: number;
  chunk: string;
  rows: number;
  /** Deployment ids named by the batch's resources (`deployment.id`), for the registry. */
  deploymentIds: number[];
  /** The traces the batch's spans belong to: their GenAI event log records are folded in once the rows are stored. */
  traceIds: string[];
  /** The batch's `gen_ai.evaluation.result` span events, as scores. */
  telemetryScores: TelemetryScore[];
}

/**
 * Turns one queued OTLP batch into encoded span rows: parse the payload, normalize the
 * spans, encode them. Pure CPU work, so it can run on the main thread or a worker thread.
 */
export function createSpanBatchEncoder(opts: { prices: PriceTable; maxValueBytes: number }) {
  return (data: unknown): EncodedBatch => {
    let payload;
    try {
      payload = parseSpanBatchPayload(data);
    } catch (err) {
      // A payload of the wrong shape will never succeed: straight to the dead letters.
      throw new UnrecoverableError(`invalid span batch payload: ${(err as Error).message}`);
    }
    const rows = spanRowsFromExport(payload.export, {
      projectId: payload.projectId,
      receivedAtMs: payload.receivedAtMs,
      prices: opts.prices,
      maxValueBytes: opts.maxValueBytes,
      ...(payload.dimensionKeys ? { dimensionKeys: payload.dimensionKeys } : {}),
      ...(payload.maskedRules ? { maskedRules: payload.maskedRules } : {}),
    });
    return {
      projectId: payload.projectId,
      receivedAtMs: payload.receivedAtMs,
      chunk: encodeSpanRows(rows),
      rows: rows.length,
      deploymentIds: deploymentIdsOf(payload.export.resourceSpans),
      ...tracesAndScoresOf(payload.export),
    };
  };
}

/** Integer ids in the `deployment.id` resource attribute (a number or a numeric string). */
function deploymentIdsOf(resourceSpans: readonly { resource: { attributes: Record<string, unknown> } }[]): number[] {
  const ids = new Set<number>();
  for (const rs of resourceSpans) {
    const raw = rs.resource.attributes['deployment.id'];
    const id = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) ids.add(id);
  }
  return [...ids];
}

function tracesAndScoresOf(batch: OtlpTraceExport): Pick<EncodedBatch, 'traceIds' | 'telemetryScores'> {
  const traceIds = new Set<string>();
  const telemetryScores: TelemetryScore[] = [];
  for (const rs of batch.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        traceIds.add(span.traceId);
        if (span.events.length > 0) telemetryScores.push(...telemetryScoresOf(span.traceId, span.spanId, span.events));
      }
    }
  }
  return { traceIds: [...traceIds], telemetryScores };
}
