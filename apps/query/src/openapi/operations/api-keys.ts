import * as v from 'valibot';
import { API_KEY_SCOPES } from '@aos/storage';
import { createKeySchema } from '../../routes/api-keys/index.ts';
import type { Operation } from '../operation.ts';
import { nullableTime, text, time } from '../shared-schemas.ts';

export const apiKey = v.object({
  id: text,
  projectId: text,
  name: text,
  prefix: text,
  scopes: v.array(v.picklist(API_KEY_SCOPES)),
  createdAt: time,
  revokedAt: nullableTime,
});
export const createdApiKey = v.object({ ...apiKey.entries, secret: v.pipe(text, v.description('Shown once: only its hash is stored')) });

export const apiKeyOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/api-keys',
    summary: "Keys of the key's project",
    scope: 'admin',
    responses: { 200: { description: 'Every key, revoked ones too; never their secrets', json: v.object({ data: v.array(apiKey) }) } },
  },
  {
    method: 'post',
    path: '/api/v1/api-keys',
    summary: "Create a key for the key's project",
    scope: 'admin',
    body: createKeySchema,
    responses: { 201: { description: 'The key with its secret, shown this once', json: createdApiKey } },
  },
  {
    method: 'delete',
    path: '/api/v1/api-keys/{id}',
    summary: 'Revoke a key',
    scope: 'admin',
    pathParams: { id: 'key id' },
    responses: { 200: { description: 'The revoked key', json: apiKey } },
    errors: [404],
  },
];
