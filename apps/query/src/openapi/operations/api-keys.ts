import * as v from 'valibot';
import { createKeySchema } from '../../routes/api-keys/index.ts';
import type { Operation } from '../operation.ts';
import * as s from '../schemas.ts';

export const apiKeyOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/api-keys',
    summary: "Keys of the key's project",
    scope: 'admin',
    responses: { 200: { description: 'Every key, revoked ones too; never their secrets', json: v.object({ data: v.array(s.apiKey) }) } },
  },
  {
    method: 'post',
    path: '/api/v1/api-keys',
    summary: "Create a key for the key's project",
    scope: 'admin',
    body: createKeySchema,
    responses: { 201: { description: 'The key with its secret, shown this once', json: s.createdApiKey } },
  },
  {
    method: 'delete',
    path: '/api/v1/api-keys/{id}',
    summary: 'Revoke a key',
    scope: 'admin',
    pathParams: { id: 'key id' },
    responses: { 200: { description: 'The revoked key', json: s.apiKey } },
    errors: [404],
  },
];
