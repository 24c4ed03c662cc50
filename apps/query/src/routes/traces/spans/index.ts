import { Hono } from 'hono';
import * as v from 'valibot';
import { parseOrThrow, queryParams, type AuthEnv } from '@aos/http';
import { searchSpans } from '@aos/storage';
import { NANOS_CURSOR_PART, decodeKeyCursor, encodeKeyCursor, limitParam } from '../../../filters/pagination.ts';
import { spanExportRoutes } from './export.ts';
import type { ExportRouteDeps } from '../../../exports/export-request.ts';
import { SPAN_FILTER_PARAMS, SPAN_FILTER_REPEATED_PARAMS, parseSpanFilter } from '../../../filters/span-filter.ts';

export const pageSchema = v.object({
  limit: limitParam(50),
  cursor: v.optional(v.string()),
});

/**
 * Spans across traces: GET /traces/spans searches them, newest first; /traces/spans/export
 * exports the spans of matching traces. Expects `requireKey(..., 'read')` to have run.
 */
export function spanRoutes(deps: ExportRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.route('/export', spanExportRoutes(deps));
  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: [...SPAN_FILTER_PARAMS, 'limit', 'cursor'], repeated: SPAN_FILTER_REPEATED_PARAMS });
    const filter = parseSpanFilter(query, c.var.apiKey);
    const page = parseOrThrow(pageSchema, { limit: query.limit, cursor: query.cursor }, 'span search');
    const after = page.cursor === undefined ? undefined : decodeKeyCursor(page.cursor, { startNs: NANOS_CURSOR_PART, traceId: ANY, spanId: ANY });
    const result = await searchSpans(deps.storage, filter, { limit: page.limit, ...(after ? { after } : {}) });
    return c.json({
      data: result.spans,
      nextCursor: result.next ? encodeKeyCursor(result.next) : null,
    });
  });
  return app;
}

const ANY = /^/;
