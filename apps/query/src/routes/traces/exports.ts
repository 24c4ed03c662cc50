import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, type AuthEnv } from '@aos/http';
import { listExports, type Storage } from '@aos/storage';
import { limitParam } from '../../filters/pagination.ts';

const EXPORT_ID = /^exp_[0-9a-f]{24}$/;

export const listParamsSchema = v.object({
  limit: limitParam(50),
  cursor: v.optional(v.string()),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/**
 * GET /traces/exports: the project's exports, newest first, with who ran them, the filter,
 * the format, and how they ended. Paginated with `limit` and an opaque `cursor`.
 * Expects `requireKey(..., 'read')` to have run.
 */
export function exportRecordRoutes(deps: { storage: Storage }) {
  const app = new Hono<AuthEnv>();
  app.get('/', async (c) => {
    const query = queryParams(c.req.url, { single: ['limit', 'cursor', 'projectId'] });
    const params = parseOrThrow(listParamsSchema, query, 'pagination');
    const projectId = projectFor(c.var.apiKey, params.projectId);
    const afterId = params.cursor === undefined ? undefined : decodeExportCursor(params.cursor);
    const page = await listExports(deps.storage, projectId, { limit: params.limit, ...(afterId ? { afterId } : {}) });
    return c.json({
      data: page.exports,
      nextCursor: page.nextAfterId ? Buffer.from(page.nextAfterId).toString('base64url') : null,
    });
  });
  return app;
}

function decodeExportCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (EXPORT_ID.test(id)) return id;
  throw new ApiError('invalid_request', 'invalid cursor: pass back the nextCursor of a previous page unchanged', [
    { field: 'cursor', message: 'not a cursor issued by this API' },
  ]);
}
