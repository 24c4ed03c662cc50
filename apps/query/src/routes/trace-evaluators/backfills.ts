import { Hono } from 'hono';
import * as v from 'valibot';
import { estimateBackfill, itemSelection } from '@aos/evaluators';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv } from '@aos/http';
import { enqueueBackfillChunk } from '@aos/queue';
import { countEvaluationItems, createBackfill, getBackfill, listBackfills, markBackfillCancelled } from '@aos/storage';
import { encodeIdCursor, idCursorParam, limitParam } from '../../filters/pagination.ts';
import { findEvaluator, type EvaluatorRouteDeps } from './find-evaluator.ts';

/** The longest window a backfill may judge. */
export const MAX_BACKFILL_DAYS = 31;
const DAY_MS = 24 * 60 * 60 * 1000;
const BACKFILL_ID = /^bf_[0-9a-f]{28}$/;

const time = v.pipe(
  v.union([v.string(), v.number()], 'must be an ISO 8601 time or epoch milliseconds'),
  v.transform((t) => (typeof t === 'number' ? t : /^\d{10,16}$/.test(t) ? Number(t) : Date.parse(t))),
  v.check((n) => Number.isFinite(n), 'must be an ISO 8601 time or epoch milliseconds'),
);
export const createSchema = v.strictObject({
  startTime: time,
  endTime: time,
  /** Answer the estimate without starting anything. */
  dryRun: v.optional(v.boolean('must be true or false'), false),
});
export const listSchema = v.object({
  projectId: v.optional(v.string()),
  limit: limitParam(50),
  cursor: idCursorParam(BACKFILL_ID),
});

/** `/trace-evaluators/{id}/backfills`: start one (or estimate it), list them with their progress. */
export function backfillRoutes(deps: EvaluatorRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.post('/', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = projectFor(c.var.apiKey, queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined);
    const evaluator = await findEvaluator(deps.storage, projectId, c.req.param('id') ?? '');
    const body = parseOrThrow(createSchema, await c.req.json().catch(() => undefined), 'body');
    if (body.endTime <= body.startTime) {
      throw new ApiError('invalid_request', 'endTime must be after startTime', [{ field: 'endTime', message: 'must be after startTime' }]);
    }
    if (body.endTime - body.startTime > MAX_BACKFILL_DAYS * DAY_MS) {
      throw new ApiError('invalid_request', `the window is longer than ${MAX_BACKFILL_DAYS} days; split it into several backfills`, [
        { field: 'endTime', message: `must be at most ${MAX_BACKFILL_DAYS} days after startTime` },
      ]);
    }
    const selection = itemSelection(evaluator, { startMs: body.startTime, endMs: body.endTime });
    const total = await countEvaluationItems(deps.storage, selection);
    const estimate = await estimateBackfill(deps.storage, evaluator, selection, total);
    const window = { startTime: new Date(body.startTime).toISOString(), endTime: new Date(body.endTime).toISOString() };
    if (body.dryRun) return c.json({ dryRun: true, evaluatorId: evaluator.id, evaluatorVersion: evaluator.version, ...window, estimate });
    const backfill = await createBackfill(deps.storage, {
      projectId,
      evaluatorId: evaluator.id,
      evaluatorVersion: evaluator.version,
      startMs: body.startTime,
      endMs: body.endTime,
      total,
      estimate: { ...estimate },
      createdBy: c.var.apiKey.id,
    });
    await enqueueBackfillChunk(deps.evaluationQueue, { projectId, backfillId: backfill.id, chunk: 0 });
    return c.json(backfill, 201);
  });

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'limit', 'cursor'] }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const evaluator = await findEvaluator(deps.storage, projectId, c.req.param('id') ?? '');
    const page = await listBackfills(deps.storage, projectId, evaluator.id, { limit: query.limit, ...(query.cursor ? { beforeId: query.cursor } : {}) });
    return c.json({
      data: page.backfills,
      nextCursor: encodeIdCursor(page.nextBeforeId),
    });
  });
  return app;
}

/** `POST /trace-evaluators/backfills/{id}/cancel`: the writer stops before its next items. */
export function backfillCancelRoutes(deps: EvaluatorRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.post('/:id/cancel', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = projectFor(c.var.apiKey, queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined);
    const id = c.req.param('id') ?? '';
    const backfill = BACKFILL_ID.test(id) ? await getBackfill(deps.storage, projectId, id) : null;
    if (!backfill) throw new ApiError('not_found', `backfill ${id} not found`);
    if (backfill.status === 'completed' || backfill.status === 'failed') {
      throw new ApiError('conflict', `backfill ${id} already ${backfill.status} at ${backfill.finishedAt}; there is nothing to cancel`);
    }
    if (backfill.cancelledAt) throw new ApiError('conflict', `backfill ${id} was already cancelled at ${backfill.cancelledAt}`);
    await markBackfillCancelled(deps.storage, projectId, id);
    return c.json(await getBackfill(deps.storage, projectId, id));
  });
  return app;
}
