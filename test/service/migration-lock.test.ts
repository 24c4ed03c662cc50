import { afterAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '@aos/log';
import { createRedisConnection, withMigrationLock } from '@aos/queue';

// Writers and query processes starting together apply the migrations one at a time.
const connections = [createRedisConnection(inject('redisUrl')), createRedisConnection(inject('redisUrl'))];
afterAll(async () => {
  for (const c of connections) await c.quit();
});

describe('migration lock', () => {
  it('lets one holder work at a time, in whatever order they arrive', async () => {
    const prefix = `lock-${process.pid}`;
    const spans: Array<{ start: number; end: number }> = [];
    const work = async () => {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, 300));
      spans.push({ start, end: performance.now() });
      return spans.length;
    };
    const results = await Promise.all(connections.map((c) => withMigrationLock(c, prefix, silentLogger, work)));
    expect(results.sort()).toEqual([1, 2]);
    const [first, second] = spans.sort((a, b) => a.start - b.start) as [{ start: number; end: number }, { start: number; end: number }];
    expect(second.start).toBeGreaterThanOrEqual(first.end);
    expect(await connections[0]!.exists(`${prefix}:migration-lock`)).toBe(0);
  });

  it('is released when the work fails, so the next process can try', async () => {
    const prefix = `lock-fail-${process.pid}`;
    await expect(withMigrationLock(connections[0]!, prefix, silentLogger, () => Promise.reject(new Error('migration 0012 failed')))).rejects.toThrow('migration 0012 failed');
    expect(await withMigrationLock(connections[1]!, prefix, silentLogger, async () => 'applied')).toBe('applied');
  });

  it('lapses when its holder died without releasing it', async () => {
    const prefix = `lock-dead-${process.pid}`;
    // A holder killed mid-migration: its key stays until it expires.
    await connections[0]!.set(`${prefix}:migration-lock`, 'dead-holder', 'PX', 500);
    const started = performance.now();
    expect(await withMigrationLock(connections[1]!, prefix, silentLogger, async () => 'applied')).toBe('applied');
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });
});
