import { randomUUID } from 'node:crypto';
import type { Logger } from '@aos/log';
import type { Redis } from './redis.ts';

const LOCK_TTL_MS = 30_000;
const POLL_MS = 250;
// Renew or release only a lock this process still holds (its token), never one that expired and another took.
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Runs `work` (the migrations) while holding a lock in Redis, so that writers and query
 * processes started at the same moment apply them one at a time: the first applies them,
 * the others wait and then find them recorded. Some migrations drop and rebuild a table,
 * which two processes must not do at once. The lock expires 30 s after its holder stops
 * renewing it (a process killed mid-migration), and migrations can be run again from any
 * point, so the next holder finishes the job.
 */
export async function withMigrationLock<T>(connection: Redis, prefix: string, logger: Logger, work: () => Promise<T>): Promise<T> {
  const key = `${prefix}:migration-lock`;
  const token = randomUUID();
  let waiting = false;
  while ((await connection.set(key, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') {
    if (!waiting) logger.info('waiting for another process to finish the migrations');
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const renewal = setInterval(() => {
    connection.eval(RENEW, 1, key, token, LOCK_TTL_MS).catch((err: Error) => logger.warn('could not renew the migration lock', { error: err.message }));
  }, LOCK_TTL_MS / 3);
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await connection.eval(RELEASE, 1, key, token);
  }
}
