import { Hono } from 'hono';
import { ApiError, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { QUERY_FIELDS, STORED_PREVIEW_CHARS, getSpanDetail, getTraceWithSpans, listTraces, type Storage } from '@aos/storage';
import { PAGE_PARAMS, encodeCursor, parsePage } from '../../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, readTraceFilter } from '../../filters/trace-filter.ts';
import { buildSpanTree } from './span-tree.ts';
import type { Logger } from '@aos/log';
import { exportSpansHandler, exportTracesHandler, listExportsHandler } from './export.ts';
import { sessionRoutes } from './sessions.ts';
import { spanSearchRoutes } from './spans.ts';
import { timeseriesHandler } from './timeseries.ts';
import { traceSummaryHandler } from './summary.ts';

export interface TraceRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  logger: Logger;
}

const TRACE_ID = /^[0-9a-fA-F]{32}$/;
const SPAN_ID = /^[0-9a-fA-F]{16}$/;

/** Reads of traces and spans. */
export function traceRoutes(deps: TraceRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'read'));
  // Fixed paths first: they must never be taken for a trace id.
  app.get('/summary', traceSummaryHandler(deps));
  app.get('/timeseries', timeseriesHandler(deps));
  app.get('/query-fields', (c) => c.json({ data: QUERY_FIELDS }));
  app.get('/export', exportTracesHandler(deps));
  app.get('/exports', listExportsHandler(deps));
  app.get('/spans/export', exportSpansHandler(deps));
  app.route('/sessions', sessionRoutes({ storage: deps.storage }));
  app.route('/spans', spanSearchRoutes({ storage: deps.storage }));

  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: [...TRACE_FILTER_PARAMS, ...PAGE_PARAMS], repeated: TRACE_FILTER_REPEATED_PARAMS });
    const filter = await readTraceFilter(query, c.var.apiKey, deps.storage);
    const page = parsePage(query);
    const after = page.after;
    if (after && !(after.value && /^-?[\d.e+-]+$/.test(after.value) && after.traceId)) {
      throw new ApiError('invalid_request', 'invalid cursor', [{ field: 'cursor', message: 'not a cursor issued by this API' }]);
    }
    const result = await listTraces(deps.storage, filter, {
      limit: page.limit,
      sortBy: page.sortBy,
      order: page.sortOrder,
      after: after ? { value: after.value!, traceId: after.traceId! } : undefined,
      // A list shows previews (the length storage keeps apart); the trace itself has the whole text.
      previewChars: STORED_PREVIEW_CHARS,
    });
    return c.json({
      // flags: null until the trace has gone quiet and been judged.
      data: result.traces.map((t) => ({ projectId: filter.projectId, ...t })),
      nextCursor: result.next ? encodeCursor(page, { ...result.next }) : null,
    });
  });

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
