import { Hono } from 'hono';
import * as v from 'valibot';
import {
  KeyedLimiter,
  TEMPLATES,
  VARIABLES,
  definitionOf,
  evaluatorInputSchema,
  evaluatorPatchSchema,
  inputOfStored,
  judgeItem,
  mergePatch,
  type EvaluatorRuntime,
} from '@aos/evaluators';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv } from '@aos/http';
import {
  createEvaluator,
  deleteEvaluator,
  existingSessions,
  existingSpans,
  existingTraces,
  listEvaluators,
  updateEvaluator,
  type EvaluationItem,
  type Storage,
} from '@aos/storage';
import { presentEvaluator, toStore } from './evaluator-body.ts';
import { EVALUATOR_ID, findEvaluator, type EvaluatorRouteDeps } from './find-evaluator.ts';
import { encodeIdCursor, idCursorParam, limitParam } from '../../filters/pagination.ts';
import { backfillCancelRoutes, backfillRoutes } from './backfills.ts';
import { evaluatorStatsRoutes } from './stats.ts';
import { ensureOutboundUrl, jsonBody, requestProject } from '../../request-helpers.ts';
import { ensureFilterDimensions } from '../../filters/known-dimensions.ts';

export const listSchema = v.object({
  projectId: v.optional(v.string()),
  limit: limitParam(100),
  cursor: idCursorParam(EVALUATOR_ID),
});

export const runSchema = v.strictObject({
  traceId: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[0-9a-f]{32}$/, 'must be 32 hex characters'))),
  spanId: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[0-9a-f]{16}$/, 'must be 16 hex characters'))),
  sessionId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
});

/** Evaluators of the caller's project: templates, variables, CRUD, runs, backfills, stats. */
export function evaluatorRoutes(deps: EvaluatorRouteDeps) {
  const app = new Hono<AuthEnv>();
  const read = requireKey(deps.auth, 'read');
  const write = requireKey(deps.auth, 'write');
  const runtime: EvaluatorRuntime = {
    storage: deps.storage,
    settings: deps.evaluatorSettings,
    limiter: new KeyedLimiter(),
    logger: deps.logger.child({ part: 'evaluators' }),
  };
  const hasDefaultEndpoint = deps.evaluatorSettings.defaultBaseUrl !== null;

  // Fixed paths first: they must never be taken for an evaluator id.
  app.get('/templates', read, (c) => {
    queryParams(c.req.url, { single: [] });
    return c.json({ data: TEMPLATES });
  });
  app.get('/variables', read, (c) => {
    queryParams(c.req.url, { single: [] });
    return c.json({ data: VARIABLES });
  });
  app.route('/stats', evaluatorStatsRoutes(deps));
  app.route('/backfills', backfillCancelRoutes(deps));

  app.get('/', read, async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'limit', 'cursor'] }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const page = await listEvaluators(deps.storage, projectId, { limit: query.limit, ...(query.cursor ? { afterId: query.cursor } : {}) });
    return c.json({
      data: page.evaluators.map(presentEvaluator),
      nextCursor: encodeIdCursor(page.nextAfterId),
    });
  });

  app.post('/', write, async (c) => {
    const projectId = requestProject(c);
    const input = parseOrThrow(evaluatorInputSchema, await jsonBody(c), 'body');
    const stored = toStore(input, c.var.apiKey, hasDefaultEndpoint);
    await ensureOutboundUrl(input.model?.baseUrl, deps.evaluatorSettings.allowPrivateUrls, 'model.baseUrl');
    await ensureFilterDimensions(deps.storage, projectId, stored.definition.traceFilter);
    const created = await createEvaluator(deps.storage, {
      projectId,
      ...stored,
      definition: { ...stored.definition },
      apiKey: input.model?.apiKey ?? null,
      createdBy: c.var.apiKey.id,
    });
    return c.json(presentEvaluator(created), 201);
  });

  app.get('/:id', read, async (c) => c.json(presentEvaluator(await findEvaluator(deps.storage, requestProject(c), c.req.param('id')))));

  app.patch('/:id', write, async (c) => {
    const current = await findEvaluator(deps.storage, requestProject(c), c.req.param('id'));
    const patch = parseOrThrow(evaluatorPatchSchema, await jsonBody(c), 'body');
    const merged = mergePatch(inputOfStored(current.name, current.autoRun, definitionOf(current)), patch);
    const stored = toStore(merged, c.var.apiKey, hasDefaultEndpoint);
    await ensureOutboundUrl(merged.model?.baseUrl, deps.evaluatorSettings.allowPrivateUrls, 'model.baseUrl');
    await ensureFilterDimensions(deps.storage, current.projectId, stored.definition.traceFilter);
    const updated = await updateEvaluator(
      deps.storage,
      current.projectId,
      current.id,
      () => ({ ...stored, definition: { ...stored.definition } }),
      patch.model?.apiKey,
    );
    if (!updated) throw new ApiError('not_found', `evaluator ${current.id} not found`);
    return c.json(presentEvaluator(updated));
  });

  app.delete('/:id', write, async (c) => {
    const current = await findEvaluator(deps.storage, requestProject(c), c.req.param('id'));
    await deleteEvaluator(deps.storage, current.projectId, current.id);
    return c.json({ id: current.id, deleted: true });
  });

  app.post('/:id/run', write, async (c) => {
    const evaluator = await findEvaluator(deps.storage, requestProject(c), c.req.param('id'));
    const body = parseOrThrow(runSchema, await jsonBody(c), 'body');
    const item = runItem(definitionOf(evaluator).target, body);
    await ensureItemExists(deps.storage, evaluator.projectId, item);
    const outcome = await judgeItem(runtime, evaluator, item, 'run');
    return c.json({
      evaluatorId: evaluator.id,
      evaluatorVersion: evaluator.version,
      item,
      ...(outcome.status === 'scored'
        ? { status: 'scored', scores: outcome.scores, ...(outcome.model ? { model: outcome.model } : {}) }
        : { status: 'failed', reason: outcome.reason, scores: [] }),
    });
  });

  app.route('/:id/backfills', backfillRoutes(deps));
  return app;
}

/** The item of a run request, which must fit the evaluator's target. */
function runItem(target: string, body: v.InferOutput<typeof runSchema>): EvaluationItem {
  const bad = (message: string) => new ApiError('invalid_request', message, [{ field: 'body', message }]);
  if (target === 'session') {
    if (body.sessionId === undefined || body.traceId !== undefined || body.spanId !== undefined) {
      throw bad('this evaluator judges sessions: give sessionId only');
    }
    return { traceId: null, spanId: null, sessionId: body.sessionId };
  }
  if (body.sessionId !== undefined || body.traceId === undefined) throw bad(`this evaluator judges ${target}s: give traceId${target === 'span' ? ' and spanId' : ''}`);
  if (target === 'span' && body.spanId === undefined) throw bad('this evaluator judges spans: give traceId and spanId');
  if (target === 'trace' && body.spanId !== undefined) throw bad('this evaluator judges whole traces: leave spanId out');
  return { traceId: body.traceId, spanId: body.spanId ?? null, sessionId: null };
}

async function ensureItemExists(storage: Storage, projectId: string, item: EvaluationItem): Promise<void> {
  if (item.sessionId !== null) {
    if (!(await existingSessions(storage, projectId, [item.sessionId])).has(item.sessionId)) {
      throw new ApiError('not_found', `session ${item.sessionId} not found`);
    }
    return;
  }
  if (!(await existingTraces(storage, projectId, [item.traceId!])).has(item.traceId!)) throw new ApiError('not_found', `trace ${item.traceId} not found`);
  if (item.spanId !== null && !(await existingSpans(storage, projectId, [{ traceId: item.traceId!, spanId: item.spanId }])).size) {
    throw new ApiError('not_found', `span ${item.spanId} not found in trace ${item.traceId}`);
  }
}
