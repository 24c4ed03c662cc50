import type { Operation } from '../operation.ts';
import * as s from '../schemas.ts';

export const serviceOperations: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    scope: null,
    responses: { 200: { description: 'The process is alive', json: s.health } },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: storage and Redis answer and every migration is applied',
    scope: null,
    responses: { 200: { description: 'Ready', json: s.ready } },
    errors: [503],
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of the process (text exposition format)',
    scope: null,
    responses: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document (OpenAPI 3.1)',
    scope: null,
    responses: { 200: { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
  {
    method: 'get',
    path: '/api/v1/reference',
    summary: 'An interactive reference page of this document',
    scope: null,
    responses: { 200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
];
