import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { createRedisConnection } from '@aos/queue';
import { migrate, type Storage } from '@aos/storage';
import { startTestService, type TestService } from '../support/service.ts';

// DURABILITY=strict: what an acknowledged export survives grows from a crash of the
// service's processes to a crash of the host (docs/operations.md, "What an ack means").
const dir = mkdtempSync(path.join(tmpdir(), 'aos-durability-'));
const started: Array<{ stop(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The fsync settings of each MergeTree table, as the engine's catalogue holds them. */
async function fsyncSettings(storage: Storage): Promise<Map<string, string>> {
  const result = await storage.client.query({
    query: "SELECT name, create_table_query AS ddl FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND NOT is_temporary AND name NOT LIKE '.inner%'",
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ name: string; ddl: string }>();
  return new Map(rows.map((r) => [r.name, /fsync_after_insert = 1, fsync_part_directory = 1/.test(r.ddl) ? 'fsync' : 'none']));
}

describe('DURABILITY', () => {
  it('strict: the private Redis fsyncs every write, and every table of the embedded engine fsyncs the parts it writes; standard undoes it', async () => {
    const redis: LocalRedis = await startLocalRedis({ dir: path.join(dir, 'redis'), appendfsync: 'always' });
    started.push(redis);
    const admin = createRedisConnection(redis.url);
    expect(await admin.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
    await admin.quit();

    const svc: TestService = await startTestService({ DURABILITY: 'strict' });
    started.push(svc);
    const strict = await fsyncSettings(svc.service.storage);
    expect(strict.get('spans')).toBe('fsync');
    expect([...strict.values()].every((s) => s === 'fsync')).toBe(true);
    expect(strict.size).toBeGreaterThan(10);

    // Started again with the default (migrate runs at every start): the tables' settings follow.
    await migrate({ ...svc.service.storage, durability: 'standard' });
    const standard = await fsyncSettings(svc.service.storage);
    expect([...standard.values()].every((s) => s === 'none')).toBe(true);
  });
});
