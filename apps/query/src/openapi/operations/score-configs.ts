import * as v from 'valibot';
import { SCORE_DATA_TYPES } from '@aos/storage';
import { createSchema, listSchema, patchSchema } from '../../routes/score-configs/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { page, text, time } from '../shared-schemas.ts';

export const scoreConfig = v.object({
  id: text,
  projectId: text,
  name: text,
  dataType: v.picklist(SCORE_DATA_TYPES),
  min: v.nullable(v.number()),
  max: v.nullable(v.number()),
  categories: v.nullable(v.array(text)),
  description: text,
  archived: v.boolean(),
  createdAt: time,
  updatedAt: time,
  createdBy: text,
});

export const scoreConfigOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/score-configs',
    summary: 'Score configs of the project',
    scope: 'read',
    query: queryParametersOf(listSchema, { includeArchived: 'true: archived configs too' }),
    responses: { 200: { description: 'A page of score configs', json: page(scoreConfig) } },
  },
  {
    method: 'post',
    path: '/api/v1/score-configs',
    summary: 'Create a score config',
    description: 'Names are unique among active configs. Scores of a configured name must fit it.',
    scope: 'write',
    query: [projectIdParam],
    body: createSchema,
    responses: { 201: { description: 'The config', json: scoreConfig } },
    errors: [409],
  },
  {
    method: 'patch',
    path: '/api/v1/score-configs/{id}',
    summary: 'Change description, bounds, categories; archive',
    scope: 'write',
    pathParams: { id: 'score config id' },
    query: [projectIdParam],
    body: patchSchema,
    responses: { 200: { description: 'The config as changed', json: scoreConfig } },
    errors: [404, 409],
  },
];
