import { spanRowsFromExport, telemetryScoresOf, type NormalizeContext, type TelemetryScore } from '@aos/domain';
import type { OtlpTraceExport } from '@aos/otlp';
import { encodeSpanRowsRowBinary } from './span-rowbinary.ts';

/** One export's spans ready to insert, and what the writer does with them once they are stored. */
export interface EncodedSpanBatch {
  /** The rows as RowBinary (span-rowbinary.ts): what Redis holds and the engine reads, unchanged. */
  chunk: Uint8Array;
  format: 'RowBinary';
  rows: number;
  /** Deployment ids named by the batch's resources (`deployment.id`), for the registry. */
  deploymentIds: number[];
  /** The traces the batch's spans belong to: their GenAI event log records are folded in once the rows are stored. */
  traceIds: string[];
  /** The batch's `gen_ai.evaluation.result` span events, as scores. */
  telemetryScores: TelemetryScore[];
}

/**
 * Normalizes one decoded (and masked) export into encoded span rows. Pure CPU work: ingest
 * runs it on its decode threads, the writer only for jobs queued in the older shape.
 */
export function encodeSpanBatch(batch: OtlpTraceExport, context: NormalizeContext): EncodedSpanBatch {
  const rows = spanRowsFromExport(batch, context);
  return {
    chunk: encodeSpanRowsRowBinary(rows),
    format: 'RowBinary',
    rows: rows.length,
    deploymentIds: deploymentIdsOf(batch.resourceSpans),
    ...tracesAndScoresOf(batch),
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

function tracesAndScoresOf(batch: OtlpTraceExport): Pick<EncodedSpanBatch, 'traceIds' | 'telemetryScores'> {
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
