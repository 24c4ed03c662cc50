import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { ConfigError } from '@aos/config';

/**
 * Runs a process entry: a configuration problem ends it with the message alone (it names
 * the setting), anything else with its stack.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err))}\n`);
    process.exit(1);
  });
}

/** Calls `stop` once on SIGINT or SIGTERM, then exits. */
export function onShutdownSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

/** Serves a Hono app until SIGINT/SIGTERM, then closes the server and runs `cleanup`. */
export function serveUntilSignal(
  app: Hono,
  http: { host: string; port: number },
  onListening: (port: number) => void,
  cleanup: () => Promise<void>,
): void {
  const server = serve({ fetch: app.fetch, hostname: http.host, port: http.port }, (info) => onListening(info.port));
  onShutdownSignal(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await cleanup();
  });
}
