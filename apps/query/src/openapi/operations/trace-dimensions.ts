import * as v from 'valibot';
import { DIMENSION_KEYS_BODY_MAX_BYTES, addSchema, listSchema } from '../../routes/trace-dimensions/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { count, text, time } from '../shared-schemas.ts';

const dimensionKey = v.object({ key: text, addedAt: time, addedBy: text });
const dimensionList = v.object({
  data: v.array(dimensionKey),
  maxKeys: count,
  suggestions: v.optional(
    v.object({
      since: time,
      sampledSpans: count,
      keys: v.array(v.object({ key: text, spans: count, share: v.number(), examples: v.array(text) })),
    }),
  ),
});
const dimensionsAdded = v.object({
  added: v.array(text),
  alreadyPresent: v.array(text),
  data: v.array(dimensionKey),
  note: text,
});

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
    responses: { 200: { description: 'The keys', json: dimensionList } },
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
      200: { description: 'Every key was already a dimension', json: dimensionsAdded },
      201: { description: 'Keys added', json: dimensionsAdded },
    },
  },
];
