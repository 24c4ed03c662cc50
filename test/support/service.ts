import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { findFreePort } from '@aos/local-services';
import { createLogger, silentLogger, type Logger } from '@aos/log';
import { startAllInOne, type AllInOne } from '@aos/server';
import { checkAnswerAgainstDocument } from './openapi-check.ts';

export interface TestService {
  url: string;
  /** 127.0.0.1:<port> of the OTLP/gRPC receiver, when started with `{ grpc: true }`. */
  grpcAddress: string | null;
  /** The development key (all scopes, project "default"). */
  key: string;
  service: AllInOne;
  env: Record<string, string>;
  dataDir: string;
  /** GET/POST helper against the service; a JSON answer must match the OpenAPI document. */
  api(pathname: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Starts the all-in-one service in this test process, with chDB in a fresh temp dir and the
 * shared test redis-server under a prefix of its own. The OTLP/gRPC receiver is off unless
 * `grpc` is asked for: then it listens on a free port of 127.0.0.1. A `logger` sees what the
 * service logs (a test that asserts on its log lines).
 */
export async function startTestService(
  overrides: Record<string, string> = {},
  options: { grpc?: boolean; logger?: Logger } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-test-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `test-${randomUUID()}`,
    HOST: '127.0.0.1',
    PORT: '0',
    // 0 turns the receiver off rather than asking for any port: a test that wants it picks one.
    OTLP_GRPC_PORT: options.grpc ? String(await findFreePort()) : '0',
    WRITER_BATCH_MAX_WAIT_MS: '20',
    LOG_LEVEL: 'error',
    // Tests send requests as fast as the machine runs them: on a quiet machine one key passes
    // the default 50 a second, and a 429 would fail a test about something else. The limits
    // have tests of their own (test/service/read-guards.test.ts), which set them.
    RATE_LIMIT_KEY_RPS: '0',
    RATE_LIMIT_PROJECT_RPS: '0',
    ...overrides,
  };
  const waits = shutdownWaits();
  // TEST_LOG=1 prints the service's errors: the cause behind a 500 a test ran into.
  const service = await startAllInOne(env, options.logger ?? (process.env.TEST_LOG ? createLogger('error') : waits.logger));
  const key = service.createdKey?.secret;
  if (!key) throw new Error('expected a development key on a fresh data directory');
  return {
    url: service.url,
    grpcAddress: service.grpcAddress,
    key,
    service,
    env,
    dataDir,
    api: async (pathname, init = {}) => {
      const headers = new Headers(init.headers);
      const k = init.key === undefined ? key : init.key;
      if (k !== null) headers.set('x-api-key', k);
      const res = await fetch(`${service.url}${pathname}`, { ...init, headers });
      await checkAnswerAgainstDocument(init.method ?? 'GET', res.url, res);
      return res;
    },
    stop: async () => {
      await waits.bounded(service.stop());
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** How long a test service's stop may take before it fails naming the step it waits on: under vitest's hook timeout (120 s). */
const STOP_BOUND_MS = 90_000;

/**
 * A silent logger but for a shutdown step that holds the service's stop (printed as it
 * comes), and a bound on the stop that fails naming that step: a stop that hangs in CI
 * says what it waited on in the failure itself, not only in output a log excerpt cuts.
 */
function shutdownWaits() {
  let waitingOn: Record<string, unknown> | undefined;
  // A worker cut off by its close bound (closeWorker) names its queue: which one hung.
  const printed = (msg: string) => msg === 'shutdown is waiting on a step' || msg.startsWith('a worker did not close');
  const print = (msg: string, fields?: Record<string, unknown>) => {
    if (!printed(msg)) return;
    if (msg === 'shutdown is waiting on a step') waitingOn = fields;
    process.stderr.write(`${JSON.stringify({ msg, ...fields })}\n`);
  };
  const logger: Logger = { ...silentLogger, warn: print, error: print, child: () => logger };
  const late = async (): Promise<never> => {
    await sleep(STOP_BOUND_MS, undefined, { ref: false });
    throw new Error(`the test service's stop did not end in ${STOP_BOUND_MS} ms; last step reported waiting: ${JSON.stringify(waitingOn ?? 'none')}`);
  };
  return { logger, bounded: (stop: Promise<void>) => Promise.race([stop, late()]) };
}

/** Polls until `check` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A JSON call: the body sent as JSON, the answer parsed (null when empty), and its text for messages. */
export async function jsonCall<T = unknown>(
  svc: TestService,
  pathname: string,
  init: { method?: string; body?: unknown; key?: string } = {},
): Promise<{ status: number; body: T; text: string }> {
  const res = await svc.api(pathname, {
    method: init.method ?? 'GET',
    ...(init.key ? { key: init.key } : {}),
    ...(init.body !== undefined ? { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, text };
}
