import type { Redis } from 'ioredis';
import { Gauge } from 'prom-client';
import { ConfigError } from '@aos/config';
import { pendingMigrations, type Storage } from '@aos/storage';
import { METRIC_PREFIX, type Metrics } from './metrics.ts';
import { withTimeout } from './queue-metrics.ts';

/** How long a dependency may take to answer a readiness probe before it counts as unreachable. */
export const PROBE_TIMEOUT_MS = 2000;

/** Each dependency and what is wrong with it, or 'ok'. */
export type ReadinessReport = Record<'storage' | 'migrations' | 'redis', string>;

export interface Readiness {
  /** Probes storage (and its recorded migrations) and Redis, each within PROBE_TIMEOUT_MS. */
  check(): Promise<ReadinessReport>;
}

export interface ReadinessDeps {
  storage: Storage;
  /** The process's Redis connection (the queue's). */
  redis: Redis;
}

/**
 * What /readyz answers and the reachability gauges report: storage answers and has every
 * migration of this version, and Redis answers a PING and keeps every key it is given.
 */
export function createReadiness(metrics: Metrics, deps: ReadinessDeps): Readiness {
  const readiness: Readiness = {
    async check() {
      const [storage, redis] = await Promise.all([probeStorage(deps.storage), probeRedis(deps.redis)]);
      return { ...storage, redis };
    },
  };
  new Gauge({
    name: `${METRIC_PREFIX}dependency_up`,
    help: 'Whether a dependency answered at scrape time (storage, redis), and whether every migration is applied (migrations)',
    labelNames: ['dependency'] as const,
    registers: [metrics.registry],
    async collect() {
      const report = await readiness.check();
      for (const [dependency, state] of Object.entries(report)) this.set({ dependency }, state === 'ok' ? 1 : 0);
    },
  });
  return readiness;
}

async function probeStorage(storage: Storage): Promise<Pick<ReadinessReport, 'storage' | 'migrations'>> {
  try {
    const pending = await withTimeout(pendingMigrations(storage), PROBE_TIMEOUT_MS);
    return { storage: 'ok', migrations: pending.length === 0 ? 'ok' : `not applied yet: ${pending.join(', ')}` };
  } catch (err) {
    return { storage: `unreachable: ${(err as Error).message}`, migrations: 'unknown: storage is unreachable' };
  }
}

async function probeRedis(redis: Redis): Promise<string> {
  // A connection that is reconnecting queues commands until Redis is back: its state says it at once.
  if (redis.status !== 'ready') return `unreachable: connection is ${redis.status}`;
  try {
    await withTimeout(redis.ping(), PROBE_TIMEOUT_MS);
    return (await withTimeout(redisEvictionProblem(redis), PROBE_TIMEOUT_MS)) ?? 'ok';
  } catch (err) {
    return `unreachable: ${(err as Error).message}`;
  }
}

/**
 * Why this Redis cannot be trusted with acknowledged data, or null. Queued rows and jobs
 * are the only copy of what ingest acknowledged: a Redis allowed to evict keys under memory
 * pressure (any maxmemory-policy but noeviction) would drop them silently. Read from INFO,
 * which managed Redis services keep when they disable CONFIG.
 */
export async function redisEvictionProblem(redis: Redis): Promise<string | null> {
  const policy = /^maxmemory_policy:(\S+)/m.exec(await redis.info('memory'))?.[1];
  if (policy === undefined || policy === 'noeviction') return null;
  return `maxmemory-policy is ${policy}: Redis may evict queued rows that were acknowledged; set it to noeviction`;
}

/**
 * Refuses to start on a Redis that may evict keys (see redisEvictionProblem). A Redis that
 * does not answer yet is not waited for (the process starts and answers 503 until it
 * does); /readyz asks again on every probe.
 */
export async function assertRedisKeepsKeys(redis: Redis): Promise<void> {
  const problem = await withTimeout(redisEvictionProblem(redis), PROBE_TIMEOUT_MS).catch(() => null);
  if (problem) throw new ConfigError(`REDIS_URL: ${problem} (CONFIG SET maxmemory-policy noeviction, or maxmemory-policy in redis.conf)`);
}
