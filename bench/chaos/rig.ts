import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { findFreePort } from '@aos/local-services';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../../test/support/clickhouse-http/start.ts';
import { devKey, startChildService, type ChildService } from '../../test/support/child-service.ts';

/**
 * The pieces every experiment is made of: the test ClickHouse endpoint (the real engine in
 * a process of its own, so this script can count rows while the service runs and after it
 * was killed), the all-in-one service as a child process on a fixed port (a restart keeps
 * the sender's URL), and the counts the table reports.
 */
export interface Rig {
  dataDir: string;
  endpoint: ClickHouseEndpoint;
  client: ClickHouseClient;
  service: ChildService;
  port: number;
  env: Record<string, string>;
  key(): string;
  /** Starts the service again on the same DATA_DIR, port and settings. */
  restartService(): Promise<ChildService>;
  restartEndpoint(): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(dir: string, extraEnv: Record<string, string> = {}): Promise<Rig> {
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
  const rig: Rig = {
    dataDir, endpoint, port, env,
    client: createClient({ url: endpoint.url, database: 'aos', request_timeout: 30_000 }),
    service: await startChildService(env),
    key: () => devKey(dataDir),
    restartService: async () => (rig.service = await startChildService(env)),
    restartEndpoint: async () => {
      rig.endpoint = endpoint = await startClickHouseEndpoint({ dataDir: chDir, port: endpointPort });
    },
    close: async () => {
      await rig.service.stop().catch(() => {});
      await rig.client.close();
      await rig.endpoint.stop().catch(() => {});
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
  const res = await fetch(`http://127.0.0.1:${rig.port}/api/v1/dead-letters?limit=100`, { headers: { 'x-api-key': rig.key() } });
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
