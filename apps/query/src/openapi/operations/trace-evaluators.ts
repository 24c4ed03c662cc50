import * as v from 'valibot';
import { evaluatorInputSchema, evaluatorPatchSchema } from '@aos/evaluators';
import { createSchema as backfillSchema, listSchema as backfillListSchema } from '../../routes/trace-evaluators/backfills.ts';
import { listSchema, runSchema } from '../../routes/trace-evaluators/index.ts';
import { statsSchema } from '../../routes/trace-evaluators/stats.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { anyObject, count, deleted, list, nullableText, nullableTime, page, score, text, textMap, time } from '../shared-schemas.ts';

export const evaluator = v.looseObject({
  id: text,
  projectId: text,
  name: text,
  version: count,
  description: text,
  kind: v.picklist(['model', 'check']),
  template: nullableText,
  target: v.picklist(['trace', 'span', 'session']),
  scoreName: text,
  autoRun: v.boolean(),
  samplingRate: v.number(),
  concurrency: count,
  filter: anyObject,
  spanFilter: anyObject,
  output: anyObject,
  prompt: v.optional(text),
  variables: v.optional(textMap),
  model: v.optional(v.looseObject({ baseUrl: nullableText, model: nullableText, apiKeySet: v.boolean(), apiKeyHint: nullableText })),
  check: v.optional(anyObject),
  createdAt: time,
  updatedAt: time,
  createdBy: text,
});
const evaluatorTemplate = v.looseObject({ id: text, kind: v.picklist(['model', 'check']), name: text, description: text, targets: v.array(text) });
const evaluatorVariable = v.object({ path: text, type: text, targets: v.array(text), description: text, keyed: v.optional(v.boolean()) });
const evaluationItem = v.object({ traceId: nullableText, spanId: nullableText, sessionId: nullableText });
const evaluatorRun = v.object({
  evaluatorId: text,
  evaluatorVersion: count,
  item: evaluationItem,
  status: v.picklist(['scored', 'failed']),
  scores: v.array(score),
  model: v.optional(v.looseObject({ attempts: count })),
  reason: v.optional(text),
});
const backfillEstimate = v.object({ items: count, modelCalls: count, estimatedInputTokens: count, maxOutputTokens: count });
const backfillDryRun = v.object({
  dryRun: v.literal(true),
  evaluatorId: text,
  evaluatorVersion: count,
  startTime: time,
  endTime: time,
  estimate: backfillEstimate,
});
export const backfill = v.object({
  id: text,
  projectId: text,
  evaluatorId: text,
  evaluatorVersion: count,
  startTime: time,
  endTime: time,
  status: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
  total: count,
  processed: count,
  failed: count,
  scoresWritten: count,
  estimate: anyObject,
  createdAt: time,
  createdBy: text,
  startedAt: nullableTime,
  finishedAt: nullableTime,
  cancelledAt: nullableTime,
  error: nullableText,
});
const evaluatorStats = v.object({
  intervalSeconds: v.number(),
  data: v.array(
    v.object({
      evaluatorId: text,
      name: nullableText,
      buckets: v.array(v.object({ start: time, count: count, mean: v.nullable(v.number()), labels: v.record(v.string(), count) })),
    }),
  ),
});

const EVALUATOR_ID = { id: 'evaluator id' };

export const evaluatorOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/templates',
    summary: 'Evaluator templates',
    scope: 'read',
    responses: { 200: { description: 'Model judge and check templates', json: list(evaluatorTemplate) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/variables',
    summary: 'The variables a template can read',
    scope: 'read',
    responses: { 200: { description: 'Variable paths with their types and targets', json: list(evaluatorVariable) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/stats',
    summary: 'Per evaluator and time bucket: scores, mean, label counts',
    scope: 'read',
    query: queryParametersOf(statsSchema),
    responses: { 200: { description: 'Every bucket of the window, by judgement time', json: evaluatorStats } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators',
    summary: 'Evaluators of the project',
    scope: 'read',
    query: queryParametersOf(listSchema),
    responses: { 200: { description: 'A page of evaluators', json: page(evaluator) } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators',
    summary: 'Create an evaluator: a model judge or a check',
    scope: 'write',
    query: [projectIdParam],
    body: evaluatorInputSchema,
    responses: { 201: { description: 'The evaluator (a model key only as apiKeySet and its last four characters)', json: evaluator } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/{id}',
    summary: 'One evaluator',
    scope: 'read',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'The evaluator', json: evaluator } },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/trace-evaluators/{id}',
    summary: 'Change an evaluator: merged into its definition, it becomes the next version',
    scope: 'write',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    body: evaluatorPatchSchema,
    responses: { 200: { description: 'The evaluator as changed', json: evaluator } },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/v1/trace-evaluators/{id}',
    summary: 'Delete an evaluator (its scores stay)',
    scope: 'write',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'Deleted', json: deleted } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators/{id}/run',
    summary: 'Judge one trace, span or session now',
    description: '{"traceId"} / {"traceId","spanId"} / {"sessionId"}, as the evaluator\'s target says.',
    scope: 'write',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    body: runSchema,
    responses: { 200: { description: 'The score written, or why the run failed', json: evaluatorRun } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators/{id}/backfills',
    summary: 'Judge a past window of at most 31 days (dryRun: the estimate only)',
    scope: 'write',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    body: backfillSchema,
    responses: {
      200: { description: 'dryRun: what the backfill would judge and cost', json: backfillDryRun },
      201: { description: 'The backfill, queued', json: backfill },
    },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/{id}/backfills',
    summary: 'Backfills of an evaluator with their progress, newest first',
    scope: 'read',
    pathParams: EVALUATOR_ID,
    query: queryParametersOf(backfillListSchema),
    responses: { 200: { description: 'A page of backfills', json: page(backfill) } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators/backfills/{id}/cancel',
    summary: 'Stop a backfill before its next items',
    scope: 'write',
    pathParams: { id: 'backfill id' },
    query: [projectIdParam],
    responses: { 200: { description: 'The backfill', json: backfill } },
    errors: [404, 409],
  },
];
