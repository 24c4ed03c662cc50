import { evaluatorInputSchema, evaluatorPatchSchema } from '@aos/evaluators';
import { createSchema as backfillSchema, listSchema as backfillListSchema } from '../../routes/trace-evaluators/backfills.ts';
import { listSchema, runSchema } from '../../routes/trace-evaluators/index.ts';
import { statsSchema } from '../../routes/trace-evaluators/stats.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

const EVALUATOR_ID = { id: 'evaluator id' };

export const evaluatorOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/templates',
    summary: 'Evaluator templates',
    scope: 'read',
    responses: { 200: { description: 'Model judge and check templates', json: s.list(s.evaluatorTemplate) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/variables',
    summary: 'The variables a template can read',
    scope: 'read',
    responses: { 200: { description: 'Variable paths with their types and targets', json: s.list(s.evaluatorVariable) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/stats',
    summary: 'Per evaluator and time bucket: scores, mean, label counts',
    scope: 'read',
    query: queryParametersOf(statsSchema),
    responses: { 200: { description: 'Every bucket of the window, by judgement time', json: s.evaluatorStats } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators',
    summary: 'Evaluators of the project',
    scope: 'read',
    query: queryParametersOf(listSchema),
    responses: { 200: { description: 'A page of evaluators', json: s.page(s.evaluator) } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators',
    summary: 'Create an evaluator: a model judge or a check',
    scope: 'write',
    query: [projectIdParam],
    body: evaluatorInputSchema,
    responses: { 201: { description: 'The evaluator (a model key only as apiKeySet and its last four characters)', json: s.evaluator } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-evaluators/{id}',
    summary: 'One evaluator',
    scope: 'read',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'The evaluator', json: s.evaluator } },
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
    responses: { 200: { description: 'The evaluator as changed', json: s.evaluator } },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/v1/trace-evaluators/{id}',
    summary: 'Delete an evaluator (its scores stay)',
    scope: 'write',
    pathParams: EVALUATOR_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'Deleted', json: s.deleted } },
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
    responses: { 200: { description: 'The score written, or why the run failed', json: s.evaluatorRun } },
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
      200: { description: 'dryRun: what the backfill would judge and cost', json: s.backfillDryRun },
      201: { description: 'The backfill, queued', json: s.backfill },
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
    responses: { 200: { description: 'A page of backfills', json: s.page(s.backfill) } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/trace-evaluators/backfills/{id}/cancel',
    summary: 'Stop a backfill before its next items',
    scope: 'write',
    pathParams: { id: 'backfill id' },
    query: [projectIdParam],
    responses: { 200: { description: 'The backfill', json: s.backfill } },
    errors: [404, 409],
  },
];
