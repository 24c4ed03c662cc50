import { Hono } from 'hono';
import { ApiError, projectFor, queryParams, type AuthEnv } from '@aos/http';
import { getSession, listSessions, type Storage } from '@aos/storage';
import { NANOS_CURSOR_PART, encodeCursor, parsePage } from '../../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';

export interface SessionRouteDeps {
  storage: Storage;
}


/**
 * Reads of sessions, mounted under /traces/sessions: the traces router has already
 * checked the key (read scope) and set `c.var.apiKey`.
 */
export function sessionRoutes(deps: SessionRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: [...TRACE_FILTER_PARAMS, 'limit', 'cursor', 'flagged'], repeated: TRACE_FILTER_REPEATED_PARAMS });
    const flaggedOnly = query.flagged !== undefined && parseFlagged(query.flagged as string);
    const filter = { ...await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage), ...(flaggedOnly ? { flaggedOnly } : {}) };
    // One order only (last activity, newest first): the page parser's default sort stamps the cursor.
    const page = parsePage({ limit: query.limit, cursor: query.cursor });
    const after = page.after;
    if (after && !(after.lastActivityNs && NANOS_CURSOR_PART.test(after.lastActivityNs) && after.sessionId)) {
      throw new ApiError('invalid_request', 'invalid cursor: pass back the nextCursor of a previous page unchanged', [
        { field: 'cursor', message: 'not a session cursor issued by this API' },
      ]);
    }
    const result = await listSessions(deps.storage, filter, {
      limit: page.limit,
      after: after ? { lastActivityNs: after.lastActivityNs!, sessionId: after.sessionId! } : undefined,
    });
    return c.json({
      data: result.sessions.map((s) => ({ projectId: filter.projectId, ...s })),
      nextCursor: result.next ? encodeCursor(page, { ...result.next }) : null,
    });
  });

  app.get('/:sessionId', async (c) => {
    const requested = queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined;
    const projectId = projectFor(c.var.apiKey, requested);
    const sessionId = c.req.param('sessionId');
    const session = await getSession(deps.storage, projectId, sessionId);
    if (!session) throw new ApiError('not_found', `session ${JSON.stringify(sessionId)} not found`);
    return c.json({ projectId, ...session });
  });

  return app;
}

/**
 * `flagged=true`: sessions with a flagged trace (trace flags are computed when traces go
 * quiet; no scheduled rule flags whole sessions yet).
 */
function parseFlagged(value: string): boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ApiError('invalid_request', 'invalid filter: flagged: must be true or false', [{ field: 'flagged', message: 'must be true or false' }]);
}
