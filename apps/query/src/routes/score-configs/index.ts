import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import {
  SCORE_DATA_TYPES,
  ScoreConfigError,
  createScoreConfig,
  listScoreConfigs,
  updateScoreConfig,
  type Storage,
} from '@aos/storage';
import { encodeIdCursor, idCursorParam, limitParam } from '../../filters/pagination.ts';
import { jsonBody, requestProject, strictBodyMessage } from '../../request-helpers.ts';

export interface ScoreConfigRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

const CONFIG_ID = /^scfg_[0-9a-f]{28}$/;

// Shapes only: the rules that span fields (min <= max, categories only on categorical
// configs, limits) live with the store, which judges a PATCH together with what it keeps.
const bound = v.nullable(v.pipe(v.number('must be a number or null'), v.finite('must be a finite number')));
const categories = v.array(v.string('must be a string'), 'must be an array of strings');
const description = v.string('must be a string');

export const createSchema = v.strictObject(
  {
    name: v.pipe(v.string('must be a string'), v.trim()),
    dataType: v.picklist(SCORE_DATA_TYPES, `must be one of ${SCORE_DATA_TYPES.join(', ')}`),
    min: v.optional(bound),
    max: v.optional(bound),
    categories: v.optional(categories),
    description: v.optional(description),
  },
  strictBodyMessage,
);

const immutable = (what: string) => v.optional(v.never(`${what} cannot be changed; archive this config and create another`));
export const patchSchema = v.strictObject(
  {
    name: immutable('the name'),
    dataType: immutable('the data type'),
    description: v.optional(description),
    min: v.optional(bound),
    max: v.optional(bound),
    categories: v.optional(categories),
    archived: v.optional(v.boolean('must be true or false')),
  },
  strictBodyMessage,
);

const LIST_PARAMS = ['projectId', 'includeArchived', 'limit', 'cursor'] as const;
export const listSchema = v.object({
  projectId: v.optional(v.string()),
  includeArchived: v.optional(
    v.pipe(v.picklist(['true', 'false'], 'must be true or false'), v.transform((s) => s === 'true')),
    'false',
  ),
  limit: limitParam(100),
  cursor: idCursorParam(CONFIG_ID),
});

/** Score configs of the caller's project: read to list, write to create and change. */
export function scoreConfigRoutes(deps: ScoreConfigRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: LIST_PARAMS }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const page = await listScoreConfigs(deps.storage, projectId, {
      includeArchived: query.includeArchived,
      limit: query.limit,
      ...(query.cursor !== undefined ? { afterId: query.cursor } : {}),
    });
    return c.json({ data: page.configs, nextCursor: encodeIdCursor(page.nextAfterId) });
  });

  app.post('/', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const body = parseOrThrow(createSchema, await jsonBody(c), 'body');
    const created = await withConfigErrors(
      createScoreConfig(deps.storage, { ...body, projectId, createdBy: c.var.apiKey.id }),
    );
    return c.json(created, 201);
  });

  app.patch('/:id', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const id = c.req.param('id');
    const { name: _name, dataType: _dataType, ...patch } = parseOrThrow(patchSchema, await jsonBody(c), 'body');
    const updated = await withConfigErrors(updateScoreConfig(deps.storage, projectId, id, patch));
    // Another project's config is "not found", not "forbidden": ids of other projects stay unconfirmed.
    if (!updated) throw new ApiError('not_found', `score config ${id} not found`);
    return c.json(updated);
  });

  return app;
}

async function withConfigErrors<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ScoreConfigError) {
      throw new ApiError(err.reason === 'conflict' ? 'conflict' : 'invalid_request', err.message, err.details);
    }
    throw err;
  }
}
