import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import {
  TRACE_RECORD_FIELDS,
  TRACE_SORT_FIELDS,
  TraceViewConflictError,
  createTraceView,
  deleteTraceView,
  getTraceView,
  listTraceViews,
  updateTraceView,
  type ApiKeyRecord,
  type Storage,
  type TraceViewInput,
} from '@aos/storage';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, filterAsQuery, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';
import { encodeIdCursor, idCursorParam, limitParam } from '../../filters/pagination.ts';
import { bodyLimitGuard } from '../../guards/body-limit.ts';
import { jsonBody, requestProject, strictBodyMessage } from '../../request-helpers.ts';

/**
 * Largest body of a view: a name, a 2,000-character description (6 KB in any script), its
 * columns and sort, and a filter made of GET /traces' query parameters, which as a URL fit in
 * Node's 16 KiB of request headers.
 */
export const VIEW_BODY_MAX_BYTES = 64 * 1024;

export interface TraceViewRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

const VIEW_ID = /^view_[0-9a-f]{24}$/;
const SORT_NAMES = Object.keys(TRACE_SORT_FIELDS) as [string, ...string[]];
// A view belongs to one project; the filter cannot point elsewhere.
const VIEW_FILTER_SINGLE = TRACE_FILTER_PARAMS.filter((p) => p !== 'projectId');

const single = v.string('must be a string');
const repeated = v.union([v.string(), v.array(v.string())], 'must be a string or an array of strings');
/** The filter as the query parameters of GET /traces: the same names, the same values. */
const filterSchema = v.strictObject(
  {
    ...Object.fromEntries(VIEW_FILTER_SINGLE.map((name) => [name, v.optional(single)])),
    ...Object.fromEntries(TRACE_FILTER_REPEATED_PARAMS.map((name) => [name, v.optional(repeated)])),
  } as Record<string, v.OptionalSchema<typeof single | typeof repeated, undefined>>,
  (issue) => (issue.expected === 'never' ? `unknown filter parameter (known: ${[...VIEW_FILTER_SINGLE, ...TRACE_FILTER_REPEATED_PARAMS].join(', ')})` : 'must be a JSON object'),
);
const sortSchema = v.strictObject(
  {
    field: v.picklist(SORT_NAMES, `must be one of ${SORT_NAMES.join(', ')}`),
    order: v.optional(v.picklist(['asc', 'desc'], 'must be asc or desc'), 'desc'),
  },
  strictBodyMessage,
);
const columnsSchema = v.pipe(
  v.array(v.picklist(TRACE_RECORD_FIELDS, `must be one of ${TRACE_RECORD_FIELDS.join(', ')}`), 'must be an array of column names'),
  v.maxLength(TRACE_RECORD_FIELDS.length),
  v.check((cols) => new Set(cols).size === cols.length, 'must not repeat a column'),
);
const fields = {
  name: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  description: v.pipe(v.string('must be a string'), v.maxLength(2000, 'must be at most 2000 characters')),
  filter: filterSchema,
  sort: sortSchema,
  columns: columnsSchema,
};
export const createSchema = v.strictObject(
  {
    name: fields.name,
    description: v.optional(fields.description, ''),
    filter: v.optional(fields.filter, {}),
    sort: v.optional(fields.sort, { field: 'startTime', order: 'desc' }),
    columns: v.optional(fields.columns, []),
  },
  strictBodyMessage,
);
export const patchSchema = v.strictObject(
  {
    name: v.optional(fields.name),
    description: v.optional(fields.description),
    filter: v.optional(fields.filter),
    sort: v.optional(fields.sort),
    columns: v.optional(fields.columns),
  },
  strictBodyMessage,
);

export const listSchema = v.object({
  projectId: v.optional(v.string()),
  limit: limitParam(100),
  cursor: idCursorParam(VIEW_ID),
});

/** Saved views of the caller's project: read to list and get, write to create, change and delete. */
export function traceViewRoutes(deps: TraceViewRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'limit', 'cursor'] }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const page = await listTraceViews(deps.storage, projectId, {
      limit: query.limit,
      ...(query.cursor !== undefined ? { afterId: query.cursor } : {}),
    });
    return c.json({ data: page.views, nextCursor: encodeIdCursor(page.nextAfterId) });
  });

  app.get('/:id', requireKey(deps.auth, 'read'), async (c) => {
    const view = await getTraceView(deps.storage, requestProject(c), c.req.param('id'));
    if (!view) throw notFound(c.req.param('id'));
    return c.json(view);
  });

  app.post('/', bodyLimitGuard(VIEW_BODY_MAX_BYTES), requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const body = parseOrThrow(createSchema, await jsonBody(c), 'body');
    const filter = await checkedFilter(deps.storage, body.filter, c.var.apiKey);
    const owner = `${c.var.apiKey.name} (${c.var.apiKey.id})`;
    const view = await withConflicts(createTraceView(deps.storage, { ...body, filter, projectId, owner }));
    return c.json(view, 201);
  });

  app.patch('/:id', bodyLimitGuard(VIEW_BODY_MAX_BYTES), requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const body = parseOrThrow(patchSchema, await jsonBody(c), 'body');
    const patch: Partial<TraceViewInput> = { ...body, filter: body.filter && (await checkedFilter(deps.storage, body.filter, c.var.apiKey)) };
    const view = await withConflicts(updateTraceView(deps.storage, projectId, c.req.param('id'), patch));
    if (!view) throw notFound(c.req.param('id'));
    return c.json(view);
  });

  app.delete('/:id', requireKey(deps.auth, 'write'), async (c) => {
    const deleted = await deleteTraceView(deps.storage, requestProject(c), c.req.param('id'));
    if (!deleted) throw notFound(c.req.param('id'));
    return c.body(null, 204);
  });

  return app;
}

/**
 * A view is checked as GET /traces would check its parameters (window, query language,
 * score bounds, flags, dimension keys), so a saved view always opens.
 */
async function checkedFilter(
  storage: Storage,
  filter: Record<string, string | string[] | undefined>,
  key: ApiKeyRecord,
): Promise<Record<string, string | string[]>> {
  // Stored in one form: repeated parameters always as arrays.
  const normalized = filterAsQuery(filter);
  try {
    await parseTraceFilterCheckingDimensions(normalized, key, storage);
    return normalized;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new ApiError(err.code, `filter: ${err.message}`, err.details.map((d) => ({ ...d, field: d.field ? `filter.${d.field}` : 'filter' })));
  }
}

function notFound(id: string): ApiError {
  // Another project's view is "not found", not "forbidden": ids of other projects stay unconfirmed.
  return new ApiError('not_found', `saved view ${id} not found`);
}

async function withConflicts<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof TraceViewConflictError) throw new ApiError('conflict', err.message);
    throw err;
  }
}
