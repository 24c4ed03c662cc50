import { Hono } from 'hono';
import { requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { Storage } from '@aos/storage';
import { traceDetailRoutes } from './detail.ts';
import { traceExportRoutes } from './export.ts';
import { exportRecordRoutes } from './exports.ts';
import { traceListRoutes } from './list.ts';
import { queryFieldRoutes } from './query-fields.ts';
import { sessionRoutes } from './sessions.ts';
import { spanRoutes } from './spans/index.ts';
import { traceSummaryRoutes } from './summary.ts';
import { timeseriesRoutes } from './timeseries.ts';

export interface TraceRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  logger: Logger;
}

/** Reads under /traces: one file per path segment, all behind a read key. */
export function traceRoutes(deps: TraceRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'read'));
  // Fixed paths first: they must never be taken for a trace id.
  app.route('/summary', traceSummaryRoutes(deps));
  app.route('/timeseries', timeseriesRoutes(deps));
  app.route('/query-fields', queryFieldRoutes());
  app.route('/export', traceExportRoutes(deps));
  app.route('/exports', exportRecordRoutes(deps));
  app.route('/sessions', sessionRoutes(deps));
  app.route('/spans', spanRoutes(deps));
  app.route('/', traceListRoutes(deps));
  app.route('/', traceDetailRoutes(deps));
  return app;
}
