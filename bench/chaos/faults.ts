import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { redisServersIn } from '../../test/support/redis-servers.ts';
import { spansFolder, type Deployment, type Rig } from './rig.ts';

/** What a fault reports beside the counts: its length and what it saw. */
export interface FaultResult {
  seconds: number;
  notes: string[];
}

export interface Experiment {
  name: string;
  simulates: string;
  /** The deployments it applies to (CHAOS_DEPLOYMENT); both when absent. */
  deployments?: readonly Deployment[];
  /** Started before the service, for faults of something outside it (an external Redis). */
  prepare?(dir: string): Promise<{ env: Record<string, string>; close(): Promise<void> }>;
  /** Makes the fault happen and ends it; the sender posts throughout. */
  fault(rig: Rig, faultMs: number): Promise<FaultResult>;
}

const since = (t: number) => (performance.now() - t) / 1000;

/** Something killed, kept down for the fault's length, and started again: the fault's seconds. */
async function downFor(faultMs: number, kill: () => Promise<void>, start: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await kill();
  await sleep(faultMs);
  await start();
  return since(t);
}

/** SIGKILL of the redis-server serving `dir` (by the pid file startLocalRedis writes), waiting until it is gone. */
async function killRedis(dir: string): Promise<void> {
  const pid = Number(readFileSync(path.join(dir, 'redis-server.pid'), 'utf8'));
  process.kill(pid, 'SIGKILL');
  while (alive(pid)) await sleep(50);
}

/** Whether `pid` still runs (a zombie, killed but not yet reaped by its parent, does not). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
  } catch {
    return false;
  }
}

/** An external Redis in `dir` whose current server the experiment can kill and start again on the same port. */
function externalRedis(dir: string) {
  let redis: LocalRedis | undefined;
  return {
    start: async () => {
      redis = await startLocalRedis({ dir, ...(redis ? { port: redis.port } : {}) });
      return redis;
    },
    kill: () => killRedis(dir),
    close: async () => redis?.stop().catch(() => {}),
  };
}

/**
 * The spans table's folder made immutable (`chattr +i`, as in test/writer/storage-outage.test.ts)
 * while `during` runs: the engine can create no part in it, and acked batches wait in Redis.
 */
async function withUnwritableSpans<T>(rig: Rig, during: () => Promise<T>): Promise<T> {
  const folder = await spansFolder(rig.client);
  execFileSync('chattr', ['+i', folder]);
  try {
    return await during();
  } finally {
    execFileSync('chattr', ['-i', folder]);
  }
}

const unwritableStorage: Experiment = {
  name: 'unwritable-storage',
  simulates: 'a full disk, a read-only remount or a permissions slip under the spans table',
  async fault(rig, faultMs) {
    const t = performance.now();
    await withUnwritableSpans(rig, () => sleep(faultMs));
    return { seconds: since(t), notes: [] };
  },
};

const sigkill: Experiment = {
  name: 'sigkill',
  simulates: 'the all-in-one process killed (OOM killer, kill -9) mid-ingest and started again',
  deployments: ['all-in-one'],
  async fault(rig, faultMs) {
    // SIGKILL leaves the private redis-server running: the restart must reclaim it, not start a second.
    const seconds = await downFor(faultMs, () => rig.service!.kill(), () => rig.restartService());
    const servers = redisServersIn(realpathSync(path.join(rig.dataDir, 'redis'))).length;
    return { seconds, notes: [`redis-servers on DATA_DIR after restart: ${servers}`] };
  },
};

const BACKLOG_MS = 10_000;

type RedisFault = (rig: Rig, redis: ReturnType<typeof externalRedis>, faultMs: number) => Promise<string[]>;

function redisFault(name: string, simulates: string, env: Record<string, string>, during: RedisFault): Experiment {
  let redis: ReturnType<typeof externalRedis>;
  return {
    name,
    simulates,
    async prepare(dir) {
      redis = externalRedis(path.join(dir, 'redis'));
      const server = await redis.start();
      return { env: { REDIS_URL: server.url, ...env }, close: redis.close };
    },
    // Storage refuses writes from BACKLOG_MS before Redis goes until it is back, so Redis holds
    // acked batches not yet stored when it dies: otherwise, at one export a second, the
    // writer keeps up and a Redis fault would put nothing at stake.
    async fault(rig, faultMs) {
      const t = performance.now();
      const notes = await withUnwritableSpans(rig, async () => {
        await sleep(BACKLOG_MS);
        return during(rig, redis, faultMs);
      });
      return { seconds: since(t), notes: [...notes, `storage unwritable from ${BACKLOG_MS / 1000} s before Redis went until it was back`] };
    },
  };
}

const redisKilled = redisFault('redis-killed', 'an external Redis killed (kill -9, OOM) mid-ingest and restarted on its directory and port', {}, async (_rig, redis, faultMs) => {
  await downFor(faultMs, redis.kill, redis.start);
  return [];
});

const sigtermRedisGone: Experiment = {
  ...redisFault('sigterm-redis-gone', 'a deploy stopping the service (SIGTERM) while its Redis is down', { SHUTDOWN_TIMEOUT_MS: '10000' }, async (rig, redis, faultMs) => {
    await redis.kill();
    const timeoutMs = Number(rig.env.SHUTDOWN_TIMEOUT_MS);
    const t = performance.now();
    const exit = new Promise<{ code: number | null; signal: string | null }>((r) => rig.service!.process.once('exit', (code, signal) => r({ code, signal })));
    rig.service!.process.kill('SIGTERM');
    const { code, signal } = await exit;
    const exitSeconds = since(t);
    await sleep(Math.max(0, faultMs - exitSeconds * 1000));
    await redis.start();
    await rig.restartService();
    return [`exit ${code ?? signal} after ${exitSeconds.toFixed(1)} s (bound ${(timeoutMs + 2000) / 1000} s)`];
  }),
  deployments: ['all-in-one'],
};
const serverKilled: Experiment = {
  name: 'server-killed',
  simulates: 'the ClickHouse server killed mid-ingest and started again on its address and data',
  async fault(rig, faultMs) {
    return { seconds: await downFor(faultMs, () => rig.endpoint.kill(), () => rig.restartEndpoint()), notes: [] };
  },
};

export const experiments: readonly Experiment[] = [unwritableStorage, sigkill, redisKilled, serverKilled, sigtermRedisGone];
