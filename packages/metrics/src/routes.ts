import { Hono } from 'hono';
import { ApiError, useApiErrors } from '@aos/http';
import type { Logger } from '@aos/log';
import { httpMetrics } from './http-metrics.ts';
import type { Metrics } from './metrics.ts';
import type { Readiness } from './readiness.ts';

/**
 * /healthz (the process answers), /readyz (its dependencies do) and /metrics (Prometheus
 * text format), beside the API on the same port. None takes a key: they carry no project
 * data (metric labels are route patterns, queue names and reasons, never a project or
 * trace id), and probes and scrapers are configured with none. Keep the port private, or
 * block /metrics at the proxy, where process figures should not be public.
 */
export function operationsRoutes(metrics: Metrics, readiness: Readiness): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const report = await readiness.check();
    const failing = Object.entries(report).filter(([, state]) => state !== 'ok');
    if (failing.length > 0) {
      throw new ApiError(
        'unavailable',
        `not ready: ${failing.map(([name]) => name).join(', ')}`,
        failing.map(([field, message]) => ({ field, message })),
      );
    }
    return c.json({ status: 'ready', checks: report });
  });
  app.get('/metrics', async (c) => {
    c.header('content-type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics());
  });
  return app;
}

/** What every process serves beside its API: its metrics and its readiness. */
export interface Operations {
  metrics: Metrics;
  readiness: Readiness;
}

/**
 * The app every process starts from (all-in-one, ingest, writer, query): request metrics
 * on every route, the operations routes, the API's error envelope and 404. Each process
 * mounts its API on it.
 */
export function createServiceApp(ops: Operations, logger: Logger): Hono {
  const app = new Hono();
  app.use(httpMetrics(ops.metrics));
  app.route('/', operationsRoutes(ops.metrics, ops.readiness));
  useApiErrors(app, logger);
  return app;
}
