import { Hono } from 'hono';
import type { Logger } from '@aos/log';
import { createServiceApp, type Operations } from '@aos/metrics';
import { otlpRoutes, type OtlpHttpPipelines } from './routes/traces/otlp.ts';

export { startProjectSettings, type ProjectSettingsSource } from './project-settings.ts';
export { MASKING_FINDINGS_FLUSH_MS, createMaskingFindings, type MaskingFindings } from './masking-findings.ts';
export { createTraceExportPipeline, type TraceExportDeps, type TraceExportPipeline } from './pipeline/trace-export.ts';
export { createLogExportPipeline, type LogExportDeps, type LogExportPipeline } from './pipeline/log-export.ts';
export { createMetricExportPipeline, type MetricExportDeps, type MetricExportPipeline } from './pipeline/metric-export.ts';
export { createInflightBytes, type InflightBytes } from './pipeline/inflight-bytes.ts';
export { startOtlpGrpcReceiver, type OtlpPipelines } from './grpc/receiver.ts';
export type { OtlpGrpcServer } from './grpc/server.ts';

/** Routes of the ingest app, to be mounted under /api/v1. */
export function ingestRoutes(pipelines: OtlpHttpPipelines): Hono {
  const app = new Hono();
  app.route('/traces/otlp', otlpRoutes(pipelines));
  return app;
}

/** The ingest app on its own: OTLP/HTTP receivers plus health, readiness and metrics. */
export function createIngestApp(pipelines: OtlpHttpPipelines, ops: Operations, logger: Logger): Hono {
  const app = createServiceApp(ops, logger);
  app.route('/api/v1', ingestRoutes(pipelines));
  return app;
}
