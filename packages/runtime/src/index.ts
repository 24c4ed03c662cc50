import type { ServerOptions } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { ConfigError } from '@aos/config';
import type { ShutdownSteps } from './shutdown-steps.ts';

export { shutdownSteps, type ShutdownSteps } from './shutdown-steps.ts';

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

export interface ShutdownOptions {
  /** How long `stop` may take before the process exits anyway (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
}

/**
 * On SIGINT or SIGTERM, calls `stop` once (stop accepting, drain) and exits when it is
 * done, or after `shutdownTimeoutMs` whatever it still waits for: a Redis or storage that no
 * longer answers must not keep the process, and with it the embedded engine's data
 * directory, alive. A second signal exits at once.
 */
export function onShutdownSignal(stop: () => Promise<void>, opts: ShutdownOptions): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`${signal}: shutting down (at most ${opts.shutdownTimeoutMs} ms)\n`);
    const timer = setTimeout(() => {
      process.stderr.write(`shutdown still waiting after ${opts.shutdownTimeoutMs} ms (SHUTDOWN_TIMEOUT_MS): exiting without it\n`);
      process.exit(1);
    }, opts.shutdownTimeoutMs);
    timer.unref();
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

export interface SlowClientLimits {
  /** Whole request (headers and body) within this, else 408 and the connection closed; 0: no bound. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
}

/**
 * Node's own guards against slow clients (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS):
 * a request not received in time is answered 408 and its socket closed by Node itself, so a
 * trickling body cannot hold a connection and its buffers for minutes. Node checks the open
 * connections every `connectionsCheckingInterval` (30 s by default): a shorter interval keeps
 * the cut close to the bound.
 */
export function slowClientServerOptions(limits: SlowClientLimits): ServerOptions {
  const headersTimeout = limits.requestTimeoutMs > 0 ? Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) : limits.headersTimeoutMs;
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout,
    connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeout / 4)),
  };
}

/**
 * Serves a Hono app until SIGINT/SIGTERM, then closes the server (the last step added, so
 * the first run: in-flight requests finish before what they use closes) and runs `steps`.
 */
export function serveUntilSignal(
  app: Hono,
  http: { host: string; port: number } & SlowClientLimits,
  onListening: (port: number) => void,
  steps: ShutdownSteps,
  shutdown: ShutdownOptions,
): void {
  const server = serve(
    { fetch: app.fetch, hostname: http.host, port: http.port, serverOptions: slowClientServerOptions(http) },
    (info) => onListening(info.port),
  );
  steps.add('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  onShutdownSignal(() => steps.run(), shutdown);
}
