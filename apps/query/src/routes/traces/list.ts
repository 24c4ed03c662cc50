import { Hono } from 'hono';
import { ApiError, queryParams, type AuthEnv } from '@aos/http';
import { STORED_PREVIEW_CHARS, isTraceCursor, listTraces, type Storage } from '@aos/storage';
import { PAGE_PARAMS, encodeCursor, parsePage } from '../../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';

/**
 * GET /traces: a page of the traces matching the trace filter, in an allow-listed order.
 * Expects `requireKey(..., 'read')` to have run.
 */
export function traceListRoutes(deps: { storage: Storage }) {
  const app = new Hono<AuthEnv>();
  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: [...TRACE_FILTER_PARAMS, ...PAGE_PARAMS], repeated: TRACE_FILTER_REPEATED_PARAMS });
    const filter = await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage);
    const page = parsePage(query);
    const after = page.after;
    if (after && !isTraceCursor(page.sortBy, after)) {
      throw new ApiError('invalid_request', 'invalid cursor: pass back the nextCursor of a previous page unchanged', [
        { field: 'cursor', message: 'not a cursor issued by this API' },
      ]);
    }
    const result = await listTraces(deps.storage, filter, {
      limit: page.limit,
      sortBy: page.sortBy,
      order: page.sortOrder,
      after: after ? { value: after.value, traceId: after.traceId } : undefined,
      // A list shows previews (the length storage keeps apart); the trace itself has the whole text.
      previewChars: STORED_PREVIEW_CHARS,
    });
    return c.json({
      // flags: null until the trace has gone quiet and been judged.
      data: result.traces.map((t) => ({ projectId: filter.projectId, ...t })),
      nextCursor: result.next ? encodeCursor(page, { ...result.next }) : null,
    });
  });
  return app;
}
