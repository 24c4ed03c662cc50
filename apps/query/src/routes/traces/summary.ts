import { Hono } from 'hono';
import { queryParams, type AuthEnv } from '@aos/http';
import { summarizeTraces, type Storage } from '@aos/storage';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';

export interface TraceSummaryDeps {
  storage: Storage;
}

/**
 * GET /traces/summary: counts, error rate, latency quantiles, cost and tokens over the
 * traces matching the trace filter. Expects `requireKey(..., 'read')` to have run.
 */
export function traceSummaryRoutes(deps: TraceSummaryDeps) {
  const app = new Hono<AuthEnv>();
  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: TRACE_FILTER_PARAMS, repeated: TRACE_FILTER_REPEATED_PARAMS });
    const filter = await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage);
    return c.json(await summarizeTraces(deps.storage, filter));
  });
  return app;
}
