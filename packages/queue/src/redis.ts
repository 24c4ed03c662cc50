import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@aos/log';

/** While Redis stays unreachable, the connection error is logged at most this often. */
const ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * A Redis connection as BullMQ wants it: commands wait for a reconnect instead of failing
 * after a fixed number of retries, so a Redis restart pauses work rather than losing it.
 * Connection errors are logged (throttled) instead of escaping as unhandled events.
 */
export function createRedisConnection(url: string, logger?: Logger): Redis {
  const connection = new EndingRedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
  connection.on('error', throttledErrorLog(logger, 'redis connection error; retrying'));
  return connection;
}

/** What ioredis does itself when a manually closed connection's socket closes. */
interface IoredisEnding {
  setStatus(status: 'end'): void;
  flushQueue(error: Error): void;
}

/**
 * An ioredis connection that ends when told to disconnect while it waits to reconnect.
 * ioredis ends a connection on its socket's close event; one whose socket is already gone
 * (waiting out its retry delay) only has its retry cancelled, never emits `end` and never
 * settles its queued commands. BullMQ's Worker.close() disconnects its blocking connection
 * (a duplicate of this one) and waits for `end`: a worker whose connection had just dropped
 * (a Redis restart, a socket reset, a blocked event loop tripping BullMQ's watchdog) kept
 * the service's stop() waiting for ever.
 */
class EndingRedis extends Redis {
  override disconnect(reconnect = false): void {
    const waitingToReconnect = !reconnect && this.status === 'reconnecting';
    super.disconnect(reconnect);
    if (!waitingToReconnect) return;
    const internals = this as unknown as IoredisEnding;
    internals.setStatus('end');
    internals.flushQueue(new Error('Connection is closed.'));
  }

  // BullMQ makes its blocking connections with duplicate(): they must end the same way.
  override duplicate(override?: Partial<RedisOptions>): Redis {
    return new EndingRedis({ ...this.options, ...override });
  }
}

/**
 * Runs `work` (a step of a shutdown that talks to Redis) until it ends or `connection` is
 * not ready: with Redis gone such a step waits for commands queued on a connection that is
 * not coming back, and none of them can be done anyway (a job completes in Redis; what was
 * acked is in Redis already). Resolves to whether the work finished.
 */
export async function unlessRedisLost(connection: Redis, work: () => Promise<unknown>): Promise<boolean> {
  if (connection.status !== 'ready') return false;
  let onLost = () => {};
  const lost = new Promise<false>((resolve) => {
    onLost = () => resolve(false);
    connection.once('close', onLost);
  });
  try {
    return await Promise.race([work().then(() => true as const), lost]);
  } finally {
    connection.off('close', onLost);
  }
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
