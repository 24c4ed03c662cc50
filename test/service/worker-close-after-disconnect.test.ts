import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { startTestService } from '../support/service.ts';

// A private redis-server: the test cuts every client connection of it.
const dir = mkdtempSync(path.join(tmpdir(), 'aos-worker-close-redis-'));
let redis: LocalRedis;
beforeAll(async () => {
  redis = await startLocalRedis({ dir });
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('closes its writer promptly while its Redis connections wait to reconnect', async () => {
  const svc = await startTestService({ REDIS_URL: redis.url });
  // The workers' blocking connections are waiting for jobs.
  await new Promise((r) => setTimeout(r, 500));
  const admin = new Redis(redis.url);
  await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
  admin.disconnect();
  // At once, while the dropped connections wait out ioredis' retry delay.
  const started = Date.now();
  await svc.service.writer.close();
  const closedMs = Date.now() - started;
  await svc.stop();
  // Before the fix the first worker's close waited for ever for its blocking connection to
  // end. The bound tells for ever from slow: a close on a loaded machine took 6 s.
  expect(closedMs).toBeLessThan(30_000);
}, 60_000);
