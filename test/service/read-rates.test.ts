import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { createApiKey } from '@aos/storage';
import type { ErrorBody } from '../support/api-types.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Requests sent at once: more than a limit of 3 a second lets through. */
const BURST = 8;

interface Answer {
  status: number;
  message: string | undefined;
  ms: number;
}

/** `BURST` light reads at once, spread over `keys`, with each answer's status, message and time. */
async function burst(svc: TestService, keys: string[]): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const started = performance.now();
      const res = await svc.api('/api/v1/trace-views', { key: keys[i % keys.length]! });
      const body = (await res.json()) as Partial<ErrorBody>;
      return { status: res.status, message: body.error?.message, ms: performance.now() - started };
    }),
  );
}

const statuses = (answers: Answer[]) => ({
  served: answers.filter((a) => a.status === 200).length,
  limited: answers.filter((a) => a.status === 429).length,
});

describe('the per-project rate through HTTP', () => {
  let svc: TestService;
  let keys: string[];
  beforeAll(async () => {
    svc = await startTestService({ RATE_LIMIT_PROJECT_RPS: '3', RATE_LIMIT_KEY_RPS: '0', API_KEY_CACHE_TTL_MS: '600000' });
    const second = await createApiKey(svc.service.storage, { projectId: 'default', name: 'second', scopes: ['read'] });
    keys = [svc.key, second.secret];
  });
  afterAll(() => svc?.stop());

  it("counts every key of a project against the project's rate", async () => {
    // Four a key, no per-key limit: only the project's count refuses any.
    const answers = await burst(svc, keys);
    const { served, limited } = statuses(answers);
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(3);
    expect(served + limited).toBe(BURST);
    expect(answers.find((a) => a.status === 429)!.message).toContain('this project sent more than 3 requests in a second');
  });
});

describe('the rate limits while Redis is down', () => {
  const redisDir = mkdtempSync(path.join(tmpdir(), 'aos-rate-redis-'));
  let redis: LocalRedis;
  let svc: TestService;
  beforeAll(async () => {
    redis = await startLocalRedis({ dir: redisDir });
    svc = await startTestService({ REDIS_URL: redis.url, RATE_LIMIT_KEY_RPS: '3', API_KEY_CACHE_TTL_MS: '600000' });
    expect((await svc.api('/api/v1/trace-views')).status).toBe(200);
  });
  afterAll(async () => {
    await svc?.stop();
    await redis?.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('are counted in the process: reads are served up to the limit and refused past it, neither held nor all refused', async () => {
    await redis.stop();
    // Past the second the warm-up was counted in.
    await new Promise((r) => setTimeout(r, 1100));
    const answers = await burst(svc, [svc.key]);
    const { served, limited } = statuses(answers);
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(3);
    expect(limited).toBe(BURST - served);
    expect(answers.find((a) => a.status === 429)!.message).toContain('this API key sent more than 3 requests in a second');
    // Not held until Redis answers again (it does not here): answered while it is down.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(10_000);
  });
});
