import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetedStorage, createApiKey, runWithBudget } from '@aos/storage';
import type { ErrorBody } from '../support/api-types.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The heavy-read slots, through HTTP against the real service. The embedded engine runs one
 * statement at a time, so a long statement sent straight to it (as another request's would
 * be) holds every heavy read that reaches the engine meanwhile, and with it that read's
 * slots: the reads sent after it meet the slots as taken.
 */
const ENGINE_BUSY_SECONDS = 12;
/** Long enough for a request to pass its key check and take its slots on a loaded machine. */
const SETTLE_MS = 1500;

/** A statement of most of a minute, stopped by its own budget after ENGINE_BUSY_SECONDS. */
function occupyEngine(svc: TestService): Promise<unknown> {
  const budget = { timeoutSeconds: ENGINE_BUSY_SECONDS, maxRowsToRead: 0, maxBytesToRead: 0, maxMemoryBytes: 0 };
  const storage = budgetedStorage(svc.service.storage);
  return runWithBudget(budget, undefined, () =>
    // JSONEachRow: a statement stopped mid-answer in JSON leaves its partial answer on the
    // engine's session, in front of the next statement's (seen with chDB 3.4).
    storage.client.query({ query: 'SELECT max(sipHash64(number)) AS m FROM numbers(999999999) WHERE number > {from:UInt64}', query_params: { from: 1 }, format: 'JSONEachRow' }),
  ).catch((err: unknown) => err);
}

interface Answer {
  status: number;
  code: string | undefined;
  message: string | undefined;
  retryAfter: string | null;
}

async function heavyRead(svc: TestService, key: string): Promise<Answer> {
  const res = await svc.api('/api/v1/traces/summary', { key });
  const body = (await res.json()) as Partial<ErrorBody>;
  return { status: res.status, code: body.error?.code, message: body.error?.message, retryAfter: res.headers.get('retry-after') };
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

describe('heavy-read slots through HTTP', () => {
  let svc: TestService;
  const keys: Record<'first' | 'sameProject' | 'other' | 'third', string> = { first: '', sameProject: '', other: '', third: '' };
  beforeAll(async () => {
    svc = await startTestService({
      QUERY_HEAVY_CONCURRENCY: '2',
      QUERY_HEAVY_CONCURRENCY_PER_PROJECT: '1',
      QUERY_QUEUE_TIMEOUT_MS: '500',
      RATE_LIMIT_KEY_HEAVY_CONCURRENCY: '1',
      // Keys are looked up in the engine: cached from the warm-up on, they are not held behind the busy engine.
      API_KEY_CACHE_TTL_MS: '600000',
    });
    const storage = svc.service.storage;
    const key = async (projectId: string) => (await createApiKey(storage, { projectId, name: `slots ${projectId}`, scopes: ['read'] })).secret;
    keys.first = svc.key;
    keys.sameProject = await key('default');
    keys.other = await key('other');
    keys.third = await key('third');
    for (const k of Object.values(keys)) expect((await heavyRead(svc, k)).status).toBe(200);
  });
  afterAll(() => svc?.stop());

  it("refuses a key past its own slots at once, a project past its slots and the process past its slots after the queue's wait", async () => {
    const busy = occupyEngine(svc);
    await settle();
    // Holds the key's one slot, its project's one slot and one of the process's two.
    const held = heavyRead(svc, keys.first);
    await settle();
    const sameKey = await heavyRead(svc, keys.first);
    // Another key of the same project: its key has a slot, its project has none.
    const sameProject = heavyRead(svc, keys.sameProject);
    // Another project takes the process's second slot and waits in the engine too.
    const other = heavyRead(svc, keys.other);
    await settle();
    // A third project finds the process full.
    const third = await heavyRead(svc, keys.third);

    expect(sameKey).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: '1' });
    expect(sameKey.message).toContain('this API key already runs 1 heavy reads at once');
    expect(await sameProject).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: '1' });
    expect((await sameProject).message).toContain('this project already runs 1 heavy reads at once');
    expect(third).toMatchObject({ status: 503, code: 'unavailable', retryAfter: '1' });
    // The reads that held the slots are answered once the engine is free, and the slots are free again.
    expect((await held).status).toBe(200);
    expect((await other).status).toBe(200);
    await busy;
    expect((await heavyRead(svc, keys.first)).status).toBe(200);
    expect((await heavyRead(svc, keys.third)).status).toBe(200);
  });
});
