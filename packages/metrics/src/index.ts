export { METRIC_PREFIX, createMetrics, type IngestSignal, type JobOutcome, type Metrics } from './metrics.ts';
export { httpMetrics } from './http-metrics.ts';
export { registerQueueMetrics } from './queue-metrics.ts';
export { PROBE_TIMEOUT_MS, assertRedisKeepsKeys, createReadiness, redisEvictionProblem, type Readiness, type ReadinessDeps, type ReadinessReport } from './readiness.ts';
export { createServiceApp, operationsRoutes, type Operations } from './routes.ts';
