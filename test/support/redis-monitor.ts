import { inject } from 'vitest';
import { Redis } from 'ioredis';

export interface RedisMonitor {
  /** Every command Redis received while watching, as one line each (arguments joined by spaces). */
  commands: string[];
  /** Stops watching and closes the connections. */
  stop(): void;
}

/** Watches every command the tests' Redis receives (MONITOR), e.g. to see what ingest queued. */
export async function watchRedisCommands(): Promise<RedisMonitor> {
  const client = new Redis(inject('redisUrl'));
  const monitor = await client.monitor();
  const commands: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
  // Monitor lines still in the socket when it closes arrive after the connection left
  // monitoring mode, and ioredis reports each as an 'error' event; unheard, that event is
  // an uncaught exception that fails whichever test runs then (seen in a full run).
  monitor.on('error', () => {});
  return {
    commands,
    stop: () => {
      monitor.disconnect();
      client.disconnect();
    },
  };
}
