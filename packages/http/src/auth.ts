import type { Context, MiddlewareHandler } from 'hono';
import { findApiKeyByHash, hashApiKey, type ApiKeyRecord, type ApiKeyScope, type Storage } from '@aos/storage';
import { ApiError } from './errors.ts';

export const API_KEY_HEADER = 'x-api-key';

/** Hono variables set by the key check. */
export type AuthEnv = { Variables: { apiKey: ApiKeyRecord } };

export interface KeyAuthenticator {
  /** The live key for this secret, or null when unknown or revoked. */
  lookup(secret: string): Promise<ApiKeyRecord | null>;
  /** Forget cached answers, e.g. after this process revoked a key. */
  clear(): void;
}

/** Unknown secrets are remembered briefly so a misconfigured exporter cannot hammer storage. */
const NEGATIVE_TTL_MS = 1000;

/**
 * Resolves secrets to keys through a small TTL cache: every request is authenticated, but
 * storage is asked at most once per key per TTL. A live key past its TTL still answers at
 * once while it is looked up again in the background: on the embedded engine the lookup
 * waits behind whatever statement runs, and an export or a cheap read must not wait with
 * it. A revocation made elsewhere takes effect within the TTL plus one lookup. Unknown
 * secrets are not served stale: a key just created elsewhere is seen on its next request.
 */
export function createKeyAuthenticator(storage: Storage, ttlMs: number): KeyAuthenticator {
  const cache = new Map<string, { key: ApiKeyRecord | null; expires: number }>();
  const inflight = new Map<string, Promise<ApiKeyRecord | null>>();
  return {
    async lookup(secret) {
      const hash = hashApiKey(secret);
      const now = Date.now();
      const hit = cache.get(hash);
      if (hit && hit.expires > now) return hit.key;
      let pending = inflight.get(hash);
      if (!pending) {
        pending = findApiKeyByHash(storage, hash).then((found) => {
          const key = found && !found.revokedAt ? found : null;
          if (cache.size > 10_000) cache.clear();
          cache.set(hash, { key, expires: Date.now() + (key ? ttlMs : Math.min(ttlMs, NEGATIVE_TTL_MS)) });
          return key;
        });
        inflight.set(hash, pending);
        pending.finally(() => inflight.delete(hash)).catch(() => {});
      }
      // A failed background lookup keeps the live copy; the next request tries again.
      if (hit?.key) return hit.key;
      return pending;
    },
    clear: () => cache.clear(),
  };
}

/** `admin` covers read and write; ingest is its own scope so exporter keys stay narrow. */
export function keyAllows(key: ApiKeyRecord, scope: ApiKeyScope): boolean {
  if (key.scopes.includes(scope)) return true;
  return key.scopes.includes('admin') && (scope === 'read' || scope === 'write');
}

/** Checks the request's key and scope; throws 401/403 as an ApiError. */
export function authenticate(c: Context, auth: KeyAuthenticator, scope: ApiKeyScope): Promise<ApiKeyRecord> {
  return checkApiKey(auth, c.req.header(API_KEY_HEADER), scope);
}

/**
 * Checks a secret sent as `x-api-key` (an HTTP header, or gRPC metadata) against the key
 * store and the scope; throws 401/403 as an ApiError, and the store's own error when it
 * cannot be asked.
 */
export async function checkApiKey(auth: KeyAuthenticator, secret: string | undefined, scope: ApiKeyScope): Promise<ApiKeyRecord> {
  if (!secret) throw new ApiError('unauthorized', `missing API key: send it in the ${API_KEY_HEADER} header`);
  const key = await auth.lookup(secret);
  if (!key) throw new ApiError('unauthorized', 'unknown or revoked API key');
  if (!keyAllows(key, scope)) {
    throw new ApiError('forbidden', `this API key lacks the ${scope} scope (it has: ${key.scopes.join(', ')})`);
  }
  return key;
}

/** Middleware form of `authenticate`, storing the key in `c.var.apiKey`. */
export function requireKey(auth: KeyAuthenticator, scope: ApiKeyScope): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    c.set('apiKey', await authenticate(c, auth, scope));
    await next();
  };
}

/** A request may name a project; it must be the key's own. Returns the project to use. */
export function projectFor(key: ApiKeyRecord, requested: string | undefined): string {
  if (requested !== undefined && requested !== key.projectId) {
    throw new ApiError('forbidden', `this API key belongs to another project than ${JSON.stringify(requested)}`, [
      { field: 'projectId', message: 'not the API key\'s project' },
    ]);
  }
  return key.projectId;
}
