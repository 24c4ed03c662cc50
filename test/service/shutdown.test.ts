import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { devKey, startChildService, type ChildService } from '../support/child-service.ts';

const dirs: string[] = [];
const children: ChildService[] = [];
const redises: LocalRedis[] = [];

afterAll(async () => {
  for (const child of children) await child.kill().catch(() => {});
  for (const redis of redises) await redis.stop().catch(() => {});
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `aos-shutdown-${name}-`));
  dirs.push(dir);
  return dir;
}

async function service(env: Record<string, string>): Promise<{ child: ChildService; dataDir: string }> {
  const dataDir = tempDir('data');
  const child = await startChildService({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error', DATA_DIR: dataDir, ...env });
  children.push(child);
  return { child, dataDir };
}

/** The exit of the child, or 'still running' when it has not exited within `ms`: the test's bound, far above the setting under test. */
function exitWithin(child: ChildService, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) {
    return Promise.resolve({ code: child.process.exitCode, signal: child.process.signalCode });
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), ms);
    child.process.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

async function ingestOne(child: ChildService, dataDir: string) {
  const now = Date.now() * 1e6;
  return fetch(`${child.url}/api/v1/traces/otlp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': devKey(dataDir) },
    body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'c0'.repeat(16), spanId: '00000000000000c1', name: 'before', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1000) }] }] }] }),
  });
}

describe('shutdown', () => {
  it('exits within SHUTDOWN_TIMEOUT_MS on SIGTERM although its Redis is gone', async () => {
    const redis = await startLocalRedis({ dir: tempDir('redis') });
    redises.push(redis);
    const { child, dataDir } = await service({ REDIS_URL: redis.url, SHUTDOWN_TIMEOUT_MS: '3000' });
    expect((await ingestOne(child, dataDir)).status).toBe(200);
    await redis.stop();
    const signalled = performance.now();
    child.process.kill('SIGTERM');
    const exit = await exitWithin(child, 30_000);
    const tookMs = performance.now() - signalled;
    // Its setting, and 2 s for a loaded machine to run the exit itself.
    expect(tookMs).toBeLessThan(3000 + 2000);
    // A clean stop: nothing acked is lost with Redis gone (the batches are in Redis), so the exit says so.
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('exits at once on a second signal while the first still drains', async () => {
    // A drain allowed ten minutes, held by an export whose body never finishes: only the
    // second signal can end it within the test.
    const { child, dataDir } = await service({ SHUTDOWN_TIMEOUT_MS: '600000' });
    const held = holdExportOpen(child, dataDir);
    await held.sending;
    // The server has read the headers and waits for the body (a loaded machine needs a moment).
    await new Promise((r) => setTimeout(r, 500));
    child.process.kill('SIGTERM');
    expect(await exitWithin(child, 1500)).toBe('still running');
    const second = performance.now();
    child.process.kill('SIGTERM');
    const exit = await exitWithin(child, 30_000);
    expect(exit).not.toBe('still running');
    expect(performance.now() - second).toBeLessThan(2000);
    held.request.destroy();
  });
});

/** An export that sends part of its declared body and then nothing: the server waits for the rest. */
function holdExportOpen(child: ChildService, dataDir: string) {
  const request = http.request(`${child.url}/api/v1/traces/otlp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '1000', 'x-api-key': devKey(dataDir) },
  });
  request.on('error', () => {});
  const sending = new Promise<void>((resolve) => request.write('{"resourceSpans":', () => resolve()));
  return { request, sending };
}
