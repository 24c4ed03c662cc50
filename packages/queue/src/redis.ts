import { Redis } from 'ioredis';

/**
 * A Redis connection as BullMQ wants it: commands wait for a reconnect instead of failing
 * after a fixed number of retries, so a Redis restart pauses work rather than losing it.
 */
export function createRedisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export type { Redis };
