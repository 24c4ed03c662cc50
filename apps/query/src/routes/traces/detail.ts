import { Hono } from 'hono';
import { ApiError, projectFor, queryParams, type AuthEnv } from '@aos/http';
import { getSpanDetail, getTraceWithSpans, type Storage } from '@aos/storage';
import { buildSpanTree } from './span-tree.ts';

const TRACE_ID = /^[0-9a-fA-F]{32}$/;
const SPAN_ID = /^[0-9a-fA-F]{16}$/;

/**
 * GET /traces/{traceId} (one trace with its span tree) and
 * GET /traces/{traceId}/spans/{spanId} (one span in full). Mounted after the fixed paths
 * of /traces, which must never be taken for a trace id. Expects `requireKey(..., 'read')`.
 */
export function traceDetailRoutes(deps: { storage: Storage }) {
  const app = new Hono<AuthEnv>();
  app.get('/:traceId', async (c) => {
    const { projectId, traceId } = traceTarget(c.req.param('traceId'), c.req.url, c.var.apiKey);
    const found = await getTraceWithSpans(deps.storage, projectId, traceId);
    if (!found) throw new ApiError('not_found', `trace ${traceId} not found`);
    return c.json({
      projectId,
      ...found.trace,
      flags: found.flags?.flags ?? null,
      flagDetails: found.flags?.details ?? null,
      spans: buildSpanTree(found.spans),
    });
  });

  app.get('/:traceId/spans/:spanId', async (c) => {
    const { projectId, traceId } = traceTarget(c.req.param('traceId'), c.req.url, c.var.apiKey);
    const spanId = c.req.param('spanId');
    if (!SPAN_ID.test(spanId)) {
      throw new ApiError('invalid_request', `invalid span id ${JSON.stringify(spanId)}: expected 16 hex characters`, [
        { field: 'spanId', message: 'expected 16 hex characters' },
      ]);
    }
    const span = await getSpanDetail(deps.storage, projectId, traceId, spanId.toLowerCase());
    if (!span) throw new ApiError('not_found', `span ${spanId} not found in trace ${traceId}`);
    return c.json({ projectId, ...span });
  });
  return app;
}

function traceTarget(traceId: string, url: string, key: AuthEnv['Variables']['apiKey']) {
  const requestedProject = queryParams(url, { single: ['projectId'] }).projectId as string | undefined;
  if (!TRACE_ID.test(traceId)) {
    throw new ApiError('invalid_request', `invalid trace id ${JSON.stringify(traceId)}: expected 32 hex characters`, [
      { field: 'traceId', message: 'expected 32 hex characters' },
    ]);
  }
  return { projectId: projectFor(key, requestedProject), traceId: traceId.toLowerCase() };
}
