import { once } from 'node:events';
import { inject } from 'vitest';
import { Redis } from 'ioredis';

export interface RedisMonitor {
  /** Every command Redis received while watching, as one line each (arguments joined by spaces). */
  commands: string[];
  /** Stops watching and closes the connection. */
  stop(): void;
}

/** Watches every command the tests' Redis receives (MONITOR), e.g. to see what ingest queued. */
export async function watchRedisCommands(): Promise<RedisMonitor> {
  // Made as ioredis' own monitor() makes it, but with the error listener in place before it
  // connects: ioredis enters monitoring mode one tick after MONITOR's OK, so monitor lines
  // arriving in the same packet (a busy shared Redis), and those still in the socket at
  // close, are reported as 'error' events; unheard, one of them fails whichever test runs.
  const monitor = new Redis(inject('redisUrl'), { monitor: true, lazyConnect: true });
  monitor.on('error', () => {});
  const commands: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
  const monitoring = once(monitor, 'monitoring');
  await monitor.connect();
  await monitoring;
  return { commands, stop: () => monitor.disconnect() };
}
