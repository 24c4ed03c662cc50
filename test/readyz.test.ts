import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { createRedisConnection } from '@aos/queue';
import { loadMigrations, type Storage } from '@aos/storage';
import type { ErrorBody } from './support/api-types.ts';
import { startChildService } from './support/child-service.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';

const redisDir = mkdtempSync(path.join(tmpdir(), 'aos-readyz-redis-'));
let redis: LocalRedis;
let svc: TestService;

beforeAll(async () => {
  redis = await startLocalRedis({ dir: redisDir });
  svc = await startTestService({ REDIS_URL: redis.url });
});
afterAll(async () => {
  await svc?.stop();
  await redis?.stop();
  rmSync(redisDir, { recursive: true, force: true });
});

async function readyz(): Promise<{ status: number; body: { status?: string; checks?: Record<string, string> } & Partial<ErrorBody> }> {
  const res = await fetch(`${svc.url}/readyz`);
  return { status: res.status, body: (await res.json()) as never };
}

/** Every storage query fails as an unreachable server's would, until `restore`: the fault sits at the boundary of the real storage. */
function takeStorageDown(storage: Storage): { restore(): void } {
  const client = storage.client as { query: Storage['client']['query'] };
  const query = client.query;
  client.query = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
  };
  return { restore: () => (client.query = query) };
}

describe('GET /readyz', () => {
  it('is 200 when storage and Redis answer and every migration is applied; /healthz only says the process is alive', async () => {
    const ready = await readyz();
    expect(ready.body).toEqual({ status: 'ready', checks: { storage: 'ok', migrations: 'ok', redis: 'ok' } });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { storage: 'ok', migrations: 'ok', redis: 'ok' } });
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('is 503 naming storage while it cannot be reached, and 200 once it is back', async () => {
    const outage = takeStorageDown(svc.service.storage);
    try {
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(down.body.error?.code).toBe('unavailable');
      expect(down.body.error?.message).toBe('not ready: storage, migrations');
      expect(down.body.error?.details).toContainEqual({ field: 'storage', message: expect.stringMatching(/^unreachable: .*ECONNREFUSED/) });
      // The process itself is still alive.
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    } finally {
      outage.restore();
    }
    expect((await readyz()).status).toBe(200);
  });

  it('is 503 naming a migration storage has not recorded', async () => {
    const last = loadMigrations('single').at(-1)!.name;
    const { client } = svc.service.storage;
    await client.command({ query: `ALTER TABLE schema_migrations DELETE WHERE name = {name:String}`, query_params: { name: last }, clickhouse_settings: { mutations_sync: '2' } });
    try {
      const pending = await readyz();
      expect(pending.status).toBe(503);
      expect(pending.body.error?.details).toEqual([{ field: 'migrations', message: `not applied yet: ${last}` }]);
    } finally {
      await client.insert({ table: 'schema_migrations', values: [{ name: last, applied_at: Date.now() }], format: 'JSONEachRow' });
    }
    expect((await readyz()).status).toBe(200);
  });

  it('is 503 naming the eviction policy of a Redis that may evict queued rows, and a service refuses to start on it', async () => {
    const admin = createRedisConnection(redis.url);
    try {
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const evicting = await readyz();
      expect(evicting.status).toBe(503);
      expect(evicting.body.error?.details).toEqual([
        { field: 'redis', message: 'maxmemory-policy is allkeys-lru: Redis may evict queued rows that were acknowledged; set it to noeviction' },
      ]);
      // The engine takes one data directory per process: the second service is a process of its own.
      const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-readyz-evicting-'));
      try {
        const refused = await startChildService({ DATA_DIR: dataDir, REDIS_URL: redis.url, PORT: '0' }).then(
          (started) => started.stop().then(() => expect.unreachable('a service started on an evicting Redis')),
          (err: Error) => err,
        );
        expect(refused.message).toMatch(/^service exited with 1:\n(.*\n)*REDIS_URL: maxmemory-policy is allkeys-lru: .*noeviction/);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.quit();
    }
    expect((await readyz()).status).toBe(200);
  });

  it('is 503 naming Redis while it is down, and 200 once it is back', async () => {
    await redis.stop();
    const down = await eventually(async () => {
      const r = await readyz();
      return r.status === 503 ? r : undefined;
    });
    expect(down.body.error?.details).toEqual([{ field: 'redis', message: expect.stringMatching(/^unreachable/) }]);
    redis = await startLocalRedis({ dir: redisDir, port: redis.port });
    await eventually(async () => ((await readyz()).status === 200 ? true : undefined), 30_000, 'ready again');
  });
});
