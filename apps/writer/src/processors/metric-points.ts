import { METRIC_POINT_QUEUE, parseMetricPointPayload, type WorkerStats } from '@aos/queue';
import { insertGenAiMetricPoints, type Storage } from '@aos/storage';
import { startPayloadProcessor, type PayloadProcessorDeps } from './payload.ts';

export interface MetricPointProcessorDeps extends PayloadProcessorDeps {
  storage: Storage;
}

/**
 * The metric points queue's processor: stores each batch's GenAI metric points. The
 * insert is idempotent (a replayed point collapses into its row), so a retried job is harmless.
 */
export function startMetricPointProcessor(deps: MetricPointProcessorDeps): { stats: WorkerStats; close(): Promise<void> } {
  return startPayloadProcessor(deps, { name: METRIC_POINT_QUEUE, parse: parseMetricPointPayload, describe: 'metric point' }, async (payload) => {
    await insertGenAiMetricPoints(deps.storage, payload.projectId, payload.receivedAtMs, payload.points);
    return { points: payload.points.length };
  });
}
