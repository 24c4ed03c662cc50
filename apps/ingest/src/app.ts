import { Hono } from 'hono';
import type { Logger } from '@aos/log';
import { createServiceApp, type Operations } from '@aos/metrics';
import type { TraceExportPipeline } from './pipeline/trace-export.ts';
import { otlpRoutes } from './routes/traces/otlp.ts';

export { startProjectSettings, type ProjectSettingsSource } from './project-settings.ts';
export { MASKING_FINDINGS_FLUSH_MS, createMaskingFindings, type MaskingFindings } from './masking-findings.ts';
export { createTraceExportPipeline, type TraceExportDeps, type TraceExportPipeline } from './pipeline/trace-export.ts';
export { startOtlpGrpcReceiver, type OtlpPipelines } from './grpc/receiver.ts';
export type { OtlpGrpcServer } from './grpc/server.ts';

/** Routes of the ingest app, to be mounted under /api/v1. */
export function ingestRoutes(traces: TraceExportPipeline): Hono {
  const app = new Hono();
  app.route('/traces/otlp', otlpRoutes(traces));
  return app;
}

/** The ingest app on its own: OTLP/HTTP receiver plus health, readiness and metrics. */
export function createIngestApp(traces: TraceExportPipeline, ops: Operations, logger: Logger): Hono {
  const app = createServiceApp(ops, logger);
  app.route('/api/v1', ingestRoutes(traces));
  return app;
}
