import * as v from 'valibot';
import { pageSchema, targetSchema } from '../../routes/trace-scores/index.ts';
import { patchScoreSchema, writeScoresBodySchema } from '../../routes/trace-scores/score-input.ts';
import { traceFilterSchema } from '../../filters/trace-filter.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { TRACE_FILTER_DESCRIPTIONS } from './traces.ts';
import { count, deleted, list, page, score, text } from '../shared-schemas.ts';

const scoreSummaryRow = v.object({
  name: text,
  count: count,
  mean: v.nullable(v.number()),
  min: v.nullable(v.number()),
  max: v.nullable(v.number()),
  labels: v.record(v.string(), count),
});

const target = queryParametersOf(targetSchema.pipe[0], {
  traceId: 'the scores of this trace and its spans (give traceId or sessionId)',
  sessionId: 'the scores of this session',
});
const SCORE_ID = { id: 'score id' };

export const scoreOperations: Operation[] = [
  {
    method: 'post',
    path: '/api/v1/trace-scores',
    summary: 'Add or update 1-100 scores, all or nothing',
    description: 'A score with the id of one of the key\'s scores, or an externalId the key used before, replaces it. If any score fails its checks (target, score config, ownership), nothing is stored and the answer is 422 naming each one.',
    scope: 'write',
    body: writeScoresBodySchema,
    responses: { 200: { description: 'The stored scores with their ids', json: v.object({ scores: v.array(score) }) } },
    errors: [422],
  },
  {
    method: 'get',
    path: '/api/v1/trace-scores',
    summary: 'Scores of a trace (and its spans) or of a session',
    scope: 'read',
    query: [...target, projectIdParam, ...queryParametersOf(pageSchema)],
    responses: { 200: { description: 'A page of scores', json: page(score) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-scores/summary',
    summary: 'Per score name: count, mean, min, max, label counts',
    description: 'Of one trace or session, or of the traces a trace filter matches (their trace and span scores).',
    scope: 'read',
    query: [...target, ...queryParametersOf(traceFilterSchema, TRACE_FILTER_DESCRIPTIONS)],
    responses: { 200: { description: 'One row per score name', json: list(scoreSummaryRow) } },
  },
  {
    method: 'patch',
    path: '/api/v1/trace-scores/{id}',
    summary: "Change one of the key's own scores",
    scope: 'write',
    pathParams: SCORE_ID,
    body: patchScoreSchema,
    responses: { 200: { description: 'The score as changed', json: score } },
    errors: [404, 422],
  },
  {
    method: 'delete',
    path: '/api/v1/trace-scores/{id}',
    summary: "Remove one of the key's own scores",
    scope: 'write',
    pathParams: SCORE_ID,
    responses: { 200: { description: 'Removed', json: deleted } },
    errors: [404],
  },
];
