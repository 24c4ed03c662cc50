import { DIMENSION_KEYS_BODY_MAX_BYTES, addSchema, listSchema } from '../../routes/trace-dimensions/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

export const dimensionOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-dimensions',
    summary: "The project's dimension keys, with suggested ones when asked",
    scope: 'read',
    query: queryParametersOf(listSchema, {
      discover: 'true: also list metadata keys of recent spans that are not dimensions yet',
      discoverDays: 'how many days of spans discovery samples',
    }),
    responses: { 200: { description: 'The keys', json: s.dimensionList } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-dimensions',
    summary: 'Add dimension keys: ingest extracts their values from spans ingested from now on',
    scope: 'write',
    query: [projectIdParam],
    body: addSchema,
    maxBodyBytes: DIMENSION_KEYS_BODY_MAX_BYTES,
    responses: {
      200: { description: 'Every key was already a dimension', json: s.dimensionsAdded },
      201: { description: 'Keys added', json: s.dimensionsAdded },
    },
  },
];
