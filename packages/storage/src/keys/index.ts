/** API keys: stored hashed, bound to a project and scopes. */
export {
  API_KEY_SCOPES,
  createApiKey,
  findApiKeyByHash,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from './api-keys.ts';
export type { ApiKeyRecord, ApiKeyScope, CreatedApiKey } from './api-keys.ts';
