import { Hono } from 'hono';
import type { Queue } from 'bullmq';
import type { IngestSettings } from '@aos/config';
import { apiErrorHandler, apiNotFound, type KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { SpanBatchPayload } from '@aos/queue';
import { createBackpressure } from './backpressure.ts';
import type { MaskingFindings } from './masking-findings.ts';
import type { ProjectSettingsSource } from './project-settings.ts';
import { otlpRoutes } from './routes/traces/otlp.ts';

export { startProjectSettings, type ProjectSettingsSource } from './project-settings.ts';
export { MASKING_FINDINGS_FLUSH_MS, createMaskingFindings, type MaskingFindings } from './masking-findings.ts';

export interface IngestAppDeps {
  auth: KeyAuthenticator;
  queue: Queue<SpanBatchPayload>;
  settings: IngestSettings;
  /** Per-project masking policy and dimension keys, applied before spans are queued. */
  projectSettings: ProjectSettingsSource;
  /** Collects masking hits on outputs and raises findings for them. */
  maskingFindings: MaskingFindings;
  logger: Logger;
}

/** Routes of the ingest app, to be mounted under /api/v1. */
export function ingestRoutes(deps: IngestAppDeps): Hono {
  const app = new Hono();
  const backpressure = createBackpressure(deps.queue, deps.settings.maxQueueDepth);
  app.route('/traces/otlp', otlpRoutes({ ...deps, backpressure }));
  return app;
}

/** The ingest app on its own: OTLP receiver plus health. */
export function createIngestApp(deps: IngestAppDeps): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.route('/api/v1', ingestRoutes(deps));
  app.onError(apiErrorHandler(deps.logger));
  app.notFound(apiNotFound);
  return app;
}
