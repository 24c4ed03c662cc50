import { Redis } from 'ioredis';
import type { Logger } from '@aos/log';

/** While Redis stays unreachable, the connection error is logged at most this often. */
const ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * A Redis connection as BullMQ wants it: commands wait for a reconnect instead of failing
 * after a fixed number of retries, so a Redis restart pauses work rather than losing it.
 * Connection errors are logged (throttled) instead of escaping as unhandled events.
 */
export function createRedisConnection(url: string, logger?: Logger): Redis {
  const connection = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
  connection.on('error', throttledErrorLog(logger, 'redis connection error; retrying'));
  return connection;
}

/** An error handler that logs the first error and then at most one every 10 s. */
export function throttledErrorLog(logger: Logger | undefined, message: string): (err: Error) => void {
  let lastLogged = 0;
  return (err) => {
    const now = Date.now();
    if (now - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = now;
    logger?.warn(message, { error: err.message });
  };
}

export type { Redis };
