import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { storageSettings } from '@aos/config';
import { findFreePort, startLocalRedis } from '@aos/local-services';
import { createApiKey, openStorage } from '@aos/storage';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../../test/support/clickhouse-http/start.ts';
import { devKey, startChildService, type ChildService } from '../../test/support/child-service.ts';
import { startPart } from '../../test/support/split-parts.ts';

/** Where the service runs: one all-in-one process, or its ingest, writer and query parts apart (CHAOS_DEPLOYMENT). */
export type Deployment = 'all-in-one' | 'split';

/**
 * The pieces every experiment is made of: the test ClickHouse endpoint (the real engine in
 * a process of its own, so this script can count rows while the service runs and after it
 * was killed), the service as child processes on fixed ports (a restart keeps the sender's
 * URL), and the counts the table reports.
 */
export interface Rig {
  deployment: Deployment;
  dataDir: string;
  endpoint: ClickHouseEndpoint;
  client: ClickHouseClient;
  /** Where the sender posts, and where the dead letters are read. */
  ingestUrl: string;
  queryUrl: string;
  /** The all-in-one process (experiments that kill or stop it run on that deployment only). */
  service: ChildService | undefined;
  env: Record<string, string>;
  key(): string;
  /** Starts the all-in-one again on the same DATA_DIR, port and settings. */
  restartService(): Promise<ChildService>;
  restartEndpoint(): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(dir: string, deployment: Deployment, extraEnv: Record<string, string> = {}): Promise<Rig> {
  const chDir = path.join(dir, 'clickhouse');
  let endpoint = await startClickHouseEndpoint({ dataDir: chDir });
  const endpointPort = Number(new URL(endpoint.url).port);
  const port = await findFreePort();
  const dataDir = path.join(dir, 'data');
  // Two attempts: were a fault spent on attempts, every batch would be a dead letter within seconds.
  const env = {
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'error',
    CLICKHOUSE_URL: endpoint.url, CLICKHOUSE_REQUEST_TIMEOUT_MS: '5000', WRITER_JOB_ATTEMPTS: '2',
    ...extraEnv,
  };
  const client = createClient({ url: endpoint.url, database: 'aos', request_timeout: 30_000 });
  const restartEndpoint = async () => {
    rig.endpoint = endpoint = await startClickHouseEndpoint({ dataDir: chDir, port: endpointPort });
  };
  const rig: Rig =
    deployment === 'split'
      ? await startSplit(dir, env, { endpoint, client, restartEndpoint })
      : {
          deployment, dataDir, endpoint, env, client,
          ingestUrl: `http://127.0.0.1:${port}`,
          queryUrl: `http://127.0.0.1:${port}`,
          service: await startChildService(env),
          key: () => devKey(dataDir),
          restartService: async () => (rig.service = await startChildService(env)),
          restartEndpoint,
          close: async () => {
            await rig.service?.stop().catch(() => {});
            await rig.client.close();
            await rig.endpoint.stop().catch(() => {});
          },
        };
  return rig;
}

/**
 * The split deployment: its own Redis (unless the experiment brings one), one ingest, one
 * query and one writer process started with their npm scripts' command lines, and a key
 * made in storage as `npm run keys` would.
 */
async function startSplit(
  dir: string,
  baseEnv: Record<string, string>,
  parts: { endpoint: ClickHouseEndpoint; client: ClickHouseClient; restartEndpoint(): Promise<void> },
): Promise<Rig> {
  const redis = baseEnv.REDIS_URL ? undefined : await startLocalRedis({ dir: path.join(dir, 'redis') });
  // Info: each part says it serves (and on which port) in an info line.
  const env: Record<string, string> = { ...baseEnv, LOG_LEVEL: 'info', REDIS_URL: baseEnv.REDIS_URL ?? redis!.url, OTLP_GRPC_PORT: '0' };
  const queryPort = await findFreePort();
  const running = await Promise.all([
    startPart('start:ingest', env),
    startPart('start:query', { ...env, PORT: String(queryPort) }),
    startPart('start:writer', { ...env, PORT: '0' }),
  ]);
  const storage = await openStorage(storageSettings({ CLICKHOUSE_URL: env.CLICKHOUSE_URL! }));
  const key = (await createApiKey(storage, { projectId: 'chaos', name: 'chaos sender', scopes: ['ingest', 'admin'] })).secret;
  await storage.close();
  const rig: Rig = {
    deployment: 'split', dataDir: env.DATA_DIR!, endpoint: parts.endpoint, client: parts.client, env,
    ingestUrl: running[0].url,
    queryUrl: running[1].url,
    service: undefined,
    key: () => key,
    restartService: () => Promise.reject(new Error('the split deployment has no all-in-one process to restart')),
    restartEndpoint: parts.restartEndpoint,
    close: async () => {
      for (const part of running) part.process.kill('SIGTERM');
      await Promise.all(running.map((part) => part.exitWithin(30_000)));
      await rig.client.close();
      await rig.endpoint.stop().catch(() => {});
      await redis?.stop().catch(() => {});
    },
  };
  return rig;
}

/** Raw rows of these traces (no FINAL: a batch stored twice counts twice) and each span once. */
export async function storedRows(client: ClickHouseClient, traceIds: readonly string[]): Promise<{ rows: number; distinct: number }> {
  if (traceIds.length === 0) return { rows: 0, distinct: 0 };
  const result = await client.query({
    query: 'SELECT count() AS rows, uniqExact(trace_id, span_id) AS distinct FROM spans WHERE trace_id IN {traceIds:Array(String)}',
    query_params: { traceIds },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: string; distinct: string }>();
  return { rows: Number(row!.rows), distinct: Number(row!.distinct) };
}

/** The folder of the spans table's parts, on the endpoint's disk. */
export async function spansFolder(client: ClickHouseClient): Promise<string> {
  const result = await client.query({ query: "SELECT data_paths FROM system.tables WHERE database = currentDatabase() AND name = 'spans'", format: 'JSONEachRow' });
  return (await result.json<{ data_paths: string[] }>())[0]!.data_paths[0]!;
}

export async function deadLetters(rig: Rig): Promise<number | string> {
  const res = await fetch(`${rig.queryUrl}/api/v1/dead-letters?limit=100`, { headers: { 'x-api-key': rig.key() } });
  if (res.status !== 200) return `HTTP ${res.status}`;
  return ((await res.json()) as { data: unknown[] }).data.length;
}

/**
 * Seconds from `since` until every acked span is stored (polled each second), or undefined
 * when they were not within `timeoutMs`: the service recovers on its own, no one acts.
 */
export async function waitStored(client: ClickHouseClient, traceIds: readonly string[], ackedSpans: number, since: number, timeoutMs: number): Promise<number | undefined> {
  while (performance.now() - since < timeoutMs) {
    const stored = await storedRows(client, traceIds).catch(() => undefined);
    if (stored && stored.distinct >= ackedSpans) return (performance.now() - since) / 1000;
    await sleep(1000);
  }
  return undefined;
}
