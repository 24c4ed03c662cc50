import type { MiddlewareHandler } from 'hono';
import { API_KEY_HEADER, type KeyAuthenticator } from '@aos/http';
import type { ReadSettings } from '@aos/config';
import { runWithBudget } from '@aos/storage';
import { HeavyReadGate } from './heavy-read-gate.ts';
import { readCostOf } from './read-cost.ts';
import type { RateLimits } from './rate-limits.ts';

export interface ReadGuardDeps {
  auth: KeyAuthenticator;
  settings: ReadSettings;
  rateLimits: RateLimits;
}

/** Where the query routes are mounted: read costs are classified by the path below it. */
const MOUNT = /^\/api\/v1(?=\/)/;

/**
 * Every API request, before its route: counted against its key's and project's rate
 * limits, a heavy read held until it gets a heavy-read slot (its key's, across processes,
 * and its project's and the process's, here), then run so that each statement it sends
 * carries the budget of its cost class and stops when the client goes away.
 * A request without a valid key goes straight on: its route answers 401.
 */
export function readGuard(deps: ReadGuardDeps): MiddlewareHandler {
  const gate = new HeavyReadGate({
    total: deps.settings.heavyConcurrency,
    perProject: deps.settings.heavyConcurrencyPerProject,
    queueTimeoutMs: deps.settings.queueTimeoutMs,
  });
  return async (c, next) => {
    const secret = c.req.header(API_KEY_HEADER);
    const key = secret ? await deps.auth.lookup(secret) : null;
    if (!key) return next();
    const headers = await deps.rateLimits.admit(key.id, key.projectId);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    const cost = readCostOf(c.req.method, c.req.path.replace(MOUNT, ''));
    const signal = c.req.raw.signal;
    const run = () => runWithBudget(deps.settings.budgets[cost], signal, next);
    if (cost === 'light') return run();
    const releaseKeySlot = await deps.rateLimits.holdHeavySlot(key.id);
    try {
      const release = await gate.acquire(key.projectId, signal);
      try {
        return await run();
      } finally {
        release();
      }
    } finally {
      releaseKeySlot();
    }
  };
}
