import * as v from 'valibot';
import type { Operation } from '../operation.ts';

const health = v.object({ status: v.literal('ok') });
const ready = v.object({ status: v.literal('ready'), checks: v.record(v.string(), v.literal('ok')) });

export const serviceOperations: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    scope: null,
    responses: { 200: { description: 'The process is alive', json: health } },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: storage and Redis answer and every migration is applied',
    scope: null,
    responses: { 200: { description: 'Ready', json: ready } },
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
  {
    method: 'get',
    path: '/api/v1/reference/scalar.js',
    summary: "The script the reference page runs (Scalar's standalone bundle, served here so that the page needs no other host)",
    scope: null,
    responses: {
      200: {
        description: 'The script (gzipped for a client that takes gzip); cacheable for a day, then revalidated by its ETag',
        content: { 'text/javascript': { schema: { type: 'string' } } },
        headers: {
          ETag: { description: "The script's version: sent back in If-None-Match, it gets a 304 while unchanged", schema: { type: 'string' } },
          'Cache-Control': { description: 'public, max-age=86400', schema: { type: 'string' } },
          'Content-Encoding': { description: 'gzip when the request took it (Accept-Encoding)', schema: { type: 'string' } },
        },
      },
      304: { description: 'Not modified since the version named by If-None-Match' },
    },
  },
];
