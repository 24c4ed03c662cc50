import { listSchema } from '../../routes/dead-letters/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import type { Operation } from '../operation.ts';
import * as s from '../schemas.ts';

export const deadLetterOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/dead-letters',
    summary: "Span batches of the key's project that failed for good",
    scope: 'admin',
    query: queryParametersOf(listSchema),
    responses: { 200: { description: 'The dead letters', json: s.list(s.deadLetter) } },
  },
  {
    method: 'post',
    path: '/api/v1/dead-letters/retry',
    summary: "Put all of the project's dead letters back in the queue, with fresh attempts",
    scope: 'admin',
    responses: { 200: { description: 'How many went back', json: s.retried } },
  },
  {
    method: 'post',
    path: '/api/v1/dead-letters/{jobId}/retry',
    summary: 'Put one dead letter back in the queue',
    description: '`{"retried":0}` when it is no longer a dead letter.',
    scope: 'admin',
    pathParams: { jobId: 'the jobId of a dead letter' },
    responses: { 200: { description: 'How many went back (0 or 1)', json: s.retried } },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/v1/dead-letters',
    summary: "Remove all of the project's dead letters for good, with their rows",
    scope: 'admin',
    responses: { 200: { description: 'How many were removed', json: s.removed } },
  },
  {
    method: 'delete',
    path: '/api/v1/dead-letters/{jobId}',
    summary: 'Remove one dead letter for good, with its rows',
    description: '`{"removed":0}` when it is no longer a dead letter (it was put back, or stored).',
    scope: 'admin',
    pathParams: { jobId: 'the jobId of a dead letter' },
    responses: { 200: { description: 'How many were removed (0 or 1)', json: s.removed } },
    errors: [404],
  },
];
