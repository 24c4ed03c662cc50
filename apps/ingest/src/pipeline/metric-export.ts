import { OtlpDecodeError, decodeMetricsExport, partitionMetricPoints } from '@aos/otlp';
import { isGenAiMetric } from '@aos/domain';
import type { MetricPointPayload } from '@aos/queue';
import type { Backpressure } from '../backpressure.ts';
import { admit, type ExportCall } from './admission.ts';
import { decodeOrRefuse, enqueueOrRefuse } from './enqueue.ts';
import { exportBackpressure, withBodyLease, type ExportDeps } from './export-deps.ts';
import type { BodyLease } from './inflight-bytes.ts';

export type MetricExportDeps = ExportDeps<MetricPointPayload>;

/** What the exporter is told on success: the data points refused, if any, with the reasons. */
export interface MetricExportResult {
  partial?: { rejectedDataPoints: number; errorMessage: string };
}

/** The metrics receiver behind both transports, with the trace receiver's checks and limits. */
export interface MetricExportPipeline {
  /**
   * Admits, reads and decodes one ExportMetricsServiceRequest and resolves once its GenAI
   * metric points are in Redis. Points of other metrics are refused one by one (partial
   * success), so an SDK that exports all its metrics to us logs no error. Throws IngestRefusal.
   */
  export(call: ExportCall): Promise<MetricExportResult>;
  maxMessageBytes: number;
  retryAfterSeconds: number;
}

/** The signal this pipeline's items are counted under. */
const SIGNAL = 'metrics';

/** One per process; its high-water mark is the metric point queue's own depth. */
export function createMetricExportPipeline(deps: MetricExportDeps): MetricExportPipeline {
  const backpressure = exportBackpressure(deps);
  return {
    export: (call) => withBodyLease(deps, SIGNAL, (lease) => exportMetrics(deps, backpressure, call, lease)),
    maxMessageBytes: deps.settings.maxBodyBytes,
    retryAfterSeconds: deps.settings.retryAfterSeconds,
  };
}

// Metric bodies are numbers and short attribute sets (an SDK exports one point per series
// per interval), so they are decoded on the event loop like log bodies. Nothing in them is
// masked: the GenAI metric attributes are model, provider and operation names, no content.
async function exportMetrics(deps: MetricExportDeps, backpressure: Backpressure, call: ExportCall, lease: BodyLease): Promise<MetricExportResult> {
  const { projectId, encoding } = await admit({ ...deps, backpressure }, call);
  const body = await call.readMessage(lease);
  deps.metrics.ingestBodyBytes.observe({ signal: SIGNAL }, body.byteLength);
  const decoded = decodeOrRefuse(() => decodeMetricsExport(body, encoding), (err) => err instanceof OtlpDecodeError);
  const result = partitionMetricPoints(decoded, isGenAiMetric);
  if (result.accepted.length > 0) {
    const payload: MetricPointPayload = { projectId, receivedAtMs: Date.now(), points: result.accepted };
    await enqueueOrRefuse(() => deps.queue.add('points', payload), deps.logger, { projectId, metricPoints: result.accepted.length });
  }
  deps.metrics.ingestAccepted.inc({ signal: SIGNAL }, result.accepted.length);
  deps.metrics.ingestRejectedItems.inc({ signal: SIGNAL }, result.rejected);
  return result.rejected > 0 ? { partial: { rejectedDataPoints: result.rejected, errorMessage: result.errorMessage } } : {};
}
