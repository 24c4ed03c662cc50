import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { API_KEY_SCOPES, createApiKey, listApiKeys, revokeApiKey, type Storage } from '@aos/storage';
import { jsonBody } from '../../request-helpers.ts';

export interface ApiKeyRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

export const createKeySchema = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  scopes: v.pipe(
    v.array(v.picklist(API_KEY_SCOPES, `must be one of ${API_KEY_SCOPES.join(', ')}`)),
    v.minLength(1, 'must name at least one scope'),
  ),
});

/** Key management for the caller's project; needs an admin key. */
export function apiKeyRoutes(deps: ApiKeyRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'admin'));

  app.get('/', async (c) => c.json({ data: await listApiKeys(deps.storage, c.var.apiKey.projectId) }));

  app.post('/', async (c) => {
    const body = parseOrThrow(createKeySchema, await jsonBody(c), 'body');
    const created = await createApiKey(deps.storage, { projectId: c.var.apiKey.projectId, ...body });
    return c.json(created, 201);
  });

  app.delete('/:id', async (c) => {
    const revoked = await revokeApiKey(deps.storage, c.req.param('id'), c.var.apiKey.projectId);
    if (!revoked) throw new ApiError('not_found', `API key ${c.req.param('id')} not found`);
    deps.auth.clear();
    return c.json(revoked);
  });

  return app;
}
