import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import {
  checkScoreAgainstConfig,
  findActiveScoreConfigs,
  findScores,
  listScores,
  summarizeScores,
  writeScoreVersions,
  type ScoreRecord,
  type ScoreTarget,
  type Storage,
} from '@aos/storage';
import { MILLIS_CURSOR_PART, decodeKeyCursor, encodeKeyCursor, limitParam } from '../../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';
import { patchScoreSchema, scoreBatchProblems, writeScoresBodySchema } from './score-input.ts';
import { dataTypeOf, writeScores } from './write-scores.ts';
import { jsonBody } from '../../request-helpers.ts';

export interface ScoreRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

export const targetSchema = v.pipe(
  v.object({
    traceId: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[0-9a-f]{32}$/, 'must be 32 hex characters'))),
    sessionId: v.optional(v.pipe(v.string(), v.minLength(1))),
  }),
  v.check((t) => (t.traceId === undefined) !== (t.sessionId === undefined), 'give exactly one of traceId and sessionId'),
);

export const pageSchema = v.object({
  limit: limitParam(100),
  cursor: v.optional(v.string()),
});

/** Scores: write (all or nothing), read per trace or session, summarize, change or remove one's own. */
export function scoreRoutes(deps: ScoreRouteDeps) {
  const app = new Hono<AuthEnv>();
  const read = requireKey(deps.auth, 'read');
  const write = requireKey(deps.auth, 'write');

  app.post('/', write, async (c) => {
    queryParams(c.req.url, { single: [] });
    const body = parseOrThrow(writeScoresBodySchema, await jsonBody(c), 'body');
    const problems = scoreBatchProblems(body.scores);
    if (problems.length > 0) {
      throw new ApiError('invalid_request', `${problems.length} of ${body.scores.length} scores are malformed, so none was written: ${problems[0]!.field}: ${problems[0]!.message}`, problems);
    }
    return c.json({ scores: await writeScores(deps.storage, c.var.apiKey, body.scores) });
  });

  app.get('/', read, async (c) => {
    const query = queryParams(c.req.url, { single: ['traceId', 'sessionId', 'projectId', 'limit', 'cursor'] });
    const projectId = projectFor(c.var.apiKey, query.projectId as string | undefined);
    const target = parseTarget(query);
    const page = parseOrThrow(pageSchema, { limit: query.limit, cursor: query.cursor }, 'pagination');
    const after = page.cursor === undefined ? undefined : decodeKeyCursor(page.cursor, { createdMs: MILLIS_CURSOR_PART, id: /^/ });
    const result = await listScores(deps.storage, projectId, target, { limit: page.limit, ...(after ? { after } : {}) });
    return c.json({
      data: result.scores,
      nextCursor: result.next ? encodeKeyCursor(result.next) : null,
    });
  });

  app.get('/summary', read, async (c) => {
    const query = queryParams(c.req.url, { single: ['traceId', 'sessionId', ...TRACE_FILTER_PARAMS], repeated: TRACE_FILTER_REPEATED_PARAMS });
    const projectId = projectFor(c.var.apiKey, query.projectId as string | undefined);
    const byTarget = query.traceId !== undefined || query.sessionId !== undefined;
    if (byTarget && (query.startTime !== undefined || query.endTime !== undefined)) {
      const field = query.startTime !== undefined ? 'startTime' : 'endTime';
      throw new ApiError('invalid_request', 'give traceId or sessionId, or a trace filter (startTime, endTime), not both', [
        { field, message: 'cannot be combined with traceId or sessionId' },
      ]);
    }
    const scope = byTarget ? parseTarget(query) : { traceFilter: await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage) };
    return c.json({ data: await summarizeScores(deps.storage, projectId, scope) });
  });

  app.patch('/:id', write, async (c) => {
    const current = await ownScore(deps.storage, c.var.apiKey, c.req.param('id'));
    const patch = parseOrThrow(patchScoreSchema, await jsonBody(c), 'body');
    const kindChanges = patch.value !== undefined || patch.stringValue !== undefined;
    const next: ScoreRecord = {
      ...current,
      ...(kindChanges
        ? { value: patch.value ?? null, stringValue: patch.stringValue ?? null, dataType: dataTypeOf(patch.value) }
        : {}),
      comment: patch.comment ?? current.comment,
      updatedAt: new Date().toISOString(),
    };
    const config = (await findActiveScoreConfigs(deps.storage, current.projectId, [current.name])).get(current.name);
    const reason = config ? checkScoreAgainstConfig(config, { value: next.value, stringValue: next.stringValue }) : null;
    if (reason) {
      const field = patch.value !== undefined ? 'value' : 'stringValue';
      throw new ApiError('unprocessable', `does not fit score config "${current.name}": ${reason}`, [{ field, message: reason }]);
    }
    await writeScoreVersions(deps.storage, [{ ...next, configId: config?.id ?? next.configId }]);
    return c.json(next);
  });

  app.delete('/:id', write, async (c) => {
    const current = await ownScore(deps.storage, c.var.apiKey, c.req.param('id'));
    await writeScoreVersions(deps.storage, [{ ...current, updatedAt: new Date().toISOString() }], true);
    return c.json({ id: current.id, deleted: true });
  });

  return app;
}

/** The caller's own score: 404 when the project has none with this id, 403 when another key owns it. */
async function ownScore(storage: Storage, key: AuthEnv['Variables']['apiKey'], id: string): Promise<ScoreRecord> {
  const current = (await findScores(storage, key.projectId, [id])).get(id);
  if (!current) throw new ApiError('not_found', `score ${id} not found`);
  if (current.ownerKeyId !== key.id) throw new ApiError('forbidden', `score ${id} belongs to another API key; only its owner may change it`);
  return current;
}

function parseTarget(query: Record<string, unknown>): ScoreTarget {
  const target = parseOrThrow(targetSchema, { traceId: query.traceId, sessionId: query.sessionId }, 'query');
  return target.traceId !== undefined ? { traceId: target.traceId } : { sessionId: target.sessionId! };
}
