import * as v from 'valibot';
import { VIEW_BODY_MAX_BYTES, createSchema, listSchema, patchSchema } from '../../routes/trace-views/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { page, text, time } from '../shared-schemas.ts';

export const traceView = v.object({
  id: text,
  projectId: text,
  name: text,
  description: text,
  filter: v.record(v.string(), v.union([v.string(), v.array(v.string())])),
  sort: v.object({ field: text, order: v.picklist(['asc', 'desc']) }),
  columns: v.array(text),
  owner: text,
  createdAt: time,
  updatedAt: time,
});

const VIEW_ID = { id: 'saved view id' };

export const viewOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-views',
    summary: 'Saved views of the project',
    scope: 'read',
    query: queryParametersOf(listSchema),
    responses: { 200: { description: 'A page of views', json: page(traceView) } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-views',
    summary: 'Save a view: a named trace filter with sort and columns',
    description: '`filter` holds the parameters of GET /traces, checked as that endpoint checks them.',
    scope: 'write',
    query: [projectIdParam],
    body: createSchema,
    maxBodyBytes: VIEW_BODY_MAX_BYTES,
    responses: { 201: { description: 'The view', json: traceView } },
    errors: [409],
  },
  {
    method: 'get',
    path: '/api/v1/trace-views/{id}',
    summary: 'One saved view',
    scope: 'read',
    pathParams: VIEW_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'The view', json: traceView } },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/trace-views/{id}',
    summary: 'Change the given fields of a saved view',
    scope: 'write',
    pathParams: VIEW_ID,
    query: [projectIdParam],
    body: patchSchema,
    maxBodyBytes: VIEW_BODY_MAX_BYTES,
    responses: { 200: { description: 'The view as changed', json: traceView } },
    errors: [404, 409],
  },
  {
    method: 'delete',
    path: '/api/v1/trace-views/{id}',
    summary: 'Delete a saved view',
    scope: 'write',
    pathParams: VIEW_ID,
    query: [projectIdParam],
    responses: { 204: { description: 'Deleted' } },
    errors: [404],
  },
];
