import * as v from 'valibot';
import { listSchema } from '../../routes/dead-letters/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import type { Operation } from '../operation.ts';
import { count, list, nullableTime, text } from '../shared-schemas.ts';

export const deadLetter = v.object({
  jobId: text,
  projectId: text,
  spanCount: v.nullable(count),
  receivedAt: nullableTime,
  failedAt: nullableTime,
  attempts: count,
  cause: v.pipe(
    v.picklist(['invalid_batch', 'stalled', 'rows_refused', 'rows_missing', 'storage_error']),
    v.description('rows_refused: the engine refused the rows themselves (see refusal); rows_missing: the rows were gone from Redis before they were stored'),
  ),
  refusal: v.pipe(v.nullable(v.picklist(['parse', 'type', 'size'])), v.description('With rows_refused: unreadable rows, a value not fitting its column, or a value too large')),
  reason: text,
});
const retried = v.object({ retried: count });
const removed = v.object({ removed: count });

export const deadLetterOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/dead-letters',
    summary: "Span batches of the key's project that failed for good",
    scope: 'admin',
    query: queryParametersOf(listSchema),
    responses: { 200: { description: 'The dead letters', json: list(deadLetter) } },
  },
  {
    method: 'post',
    path: '/api/v1/dead-letters/retry',
    summary: "Put all of the project's dead letters back in the queue, with fresh attempts",
    scope: 'admin',
    responses: { 200: { description: 'How many went back', json: retried } },
  },
  {
    method: 'post',
    path: '/api/v1/dead-letters/{jobId}/retry',
    summary: 'Put one dead letter back in the queue',
    description: '`{"retried":0}` when it is no longer a dead letter.',
    scope: 'admin',
    pathParams: { jobId: 'the jobId of a dead letter' },
    responses: { 200: { description: 'How many went back (0 or 1)', json: retried } },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/v1/dead-letters',
    summary: "Remove all of the project's dead letters for good, with their rows",
    scope: 'admin',
    responses: { 200: { description: 'How many were removed', json: removed } },
  },
  {
    method: 'delete',
    path: '/api/v1/dead-letters/{jobId}',
    summary: 'Remove one dead letter for good, with its rows',
    description: '`{"removed":0}` when it is no longer a dead letter (it was put back, or stored).',
    scope: 'admin',
    pathParams: { jobId: 'the jobId of a dead letter' },
    responses: { 200: { description: 'How many were removed (0 or 1)', json: removed } },
    errors: [404],
  },
];
