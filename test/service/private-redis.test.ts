import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { devKey, startChildService } from '../support/child-service.ts';
import { redisServersIn } from '../support/redis-servers.ts';
import { eventually } from '../support/service.ts';
import { runSupportScript } from '../support/support-script.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aos-private-redis-'));
let redis: LocalRedis | undefined;

afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A process that starts a private redis-server in `dir`, and is then SIGKILLed as in a crash. */
async function crashAfterStartingRedis(dir: string): Promise<{ pid: number; port: number }> {
  const child = runSupportScript('orphan-redis.ts', [dir]);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`helper exited with ${code}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  const [pid, port] = line.split(' ').map(Number);
  return { pid: pid!, port: port! };
}

describe('the private redis-server', () => {
  it('left running by a killed process is shut down before another starts on its directory, keeping its data', async () => {
    const orphan = await crashAfterStartingRedis(dir);
    // The crash left the server running, and holding what it was sent.
    expect(redisServersIn(dir)).toEqual([orphan.pid]);
    const client = new Redis(orphan.port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
    await client.connect();
    await client.set('kept', 'across the restart');
    await client.quit();

    redis = await startLocalRedis({ dir });
    // One server on the directory: the new one, which read the old one's append-only file.
    expect(redisServersIn(dir)).toEqual([Number(readFileSync(path.join(dir, 'redis-server.pid'), 'utf8'))]);
    expect(redisServersIn(dir)).not.toContain(orphan.pid);
    const fresh = new Redis(redis.port, '127.0.0.1', { lazyConnect: true });
    await fresh.connect();
    expect(await fresh.get('kept')).toBe('across the restart');
    await fresh.quit();
  });

  it('keeps every write in its append-only file, rewritten only past 512 MB (the queue\'s data is transient, the file grows by every batch)', async () => {
    redis ??= await startLocalRedis({ dir });
    const client = new Redis(redis.port, '127.0.0.1', { lazyConnect: true });
    await client.connect();
    const setting = async (name: string) => ((await client.config('GET', name)) as string[])[1];
    expect(await setting('appendonly')).toBe('yes');
    expect(await setting('appendfsync')).toBe('everysec');
    expect(await setting('auto-aof-rewrite-min-size')).toBe(String(512 * 1024 * 1024));
    await client.quit();
  });

  it('does not signal a process that merely reuses a stale pid', async () => {
    await redis!.stop();
    redis = undefined;
    // A pid file naming a live process that is not a redis-server of this directory: this test's own.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'redis-server.pid'), `${process.pid}\n`);
    redis = await startLocalRedis({ dir });
    expect(redisServersIn(dir)).toHaveLength(1);
  });
});

describe('the all-in-one service, SIGKILLed and restarted on its data directory', () => {
  it('runs one private redis-server again and serves every span it acknowledged', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-kill-restart-'));
    const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error' };
    let child = await startChildService(env);
    const redisDir = realpathSync(path.join(dataDir, 'redis'));
    try {
      const key = devKey(dataDir);
      const traceId = 'e7'.repeat(16);
      const now = Date.now() * 1e6;
      const sent = await fetch(`${child.url}/api/v1/traces/otlp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: '00000000000000e7', name: 'acked', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1000) }] }] }] }),
      });
      expect(sent.status).toBe(200);
      const first = redisServersIn(redisDir);
      expect(first).toHaveLength(1);
      await child.kill();
      // SIGKILL left the private redis-server running.
      expect(redisServersIn(redisDir)).toEqual(first);

      child = await startChildService(env);
      const now2 = redisServersIn(redisDir);
      expect(now2).toHaveLength(1);
      expect(now2).not.toEqual(first);
      await eventually(async () => ((await fetch(`${child.url}/api/v1/traces/${traceId}`, { headers: { 'x-api-key': key } })).status === 200 ? true : undefined), 60_000, 'the acked span');
    } finally {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
