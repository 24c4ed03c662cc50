import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExportResultCode } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { storageSettings } from '@aos/config';
import { createApiKey, loadMigrations, openStorage, type Storage } from '@aos/storage';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../support/clickhouse-http/start.ts';
import { otlpExporter, recordSpans } from '../support/otel.ts';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually } from '../support/service.ts';
import { streamedPost } from '../support/raw-http.ts';
import { startPart, type Part } from '../support/split-parts.ts';

// The deployment of "Running the parts separately": ingest, two writers and query as their
// own processes, started with their npm scripts' command lines and the documented
// environment, on Redis and a ClickHouse HTTP endpoint (the real engine in a process of
// its own, spoken to as a server).
const dir = mkdtempSync(path.join(tmpdir(), 'aos-split-'));
const SHUTDOWN_TIMEOUT_MS = 5_000;
const QUERY_MAX_BODY_BYTES = 65_536;
const env = () => ({
  CLICKHOUSE_URL: endpoint.url,
  CLICKHOUSE_USER: 'aos',
  CLICKHOUSE_PASSWORD: 'split-secret',
  REDIS_URL: inject('redisUrl'),
  QUEUE_PREFIX: `split-${process.pid}`,
  HOST: '127.0.0.1',
  PORT: '0',
  OTLP_GRPC_PORT: '0',
  SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  // A killed writer's jobs are taken over once their lock expires: short, so the test is.
  WRITER_LOCK_DURATION_MS: '2000',
  DATA_DIR: path.join(dir, 'unused'),
});
let endpoint: ClickHouseEndpoint;
let storage: Storage;
let ingest: Part;
let writers: Part[];
let query: Part;
let key: string;
const started = Date.now();

beforeAll(async () => {
  endpoint = await startClickHouseEndpoint({ dataDir: path.join(dir, 'clickhouse'), users: { aos: { password: 'split-secret' } } });
  // All at the same moment: the migrations must still run once.
  [ingest, query, ...writers] = await Promise.all([
    startPart('start:ingest', env()),
    // Its own body limit, well below the default, to show the part reads it.
    startPart('start:query', { ...env(), API_MAX_BODY_BYTES: String(QUERY_MAX_BODY_BYTES) }),
    // The first writer holds its batches for a minute before writing them, so that when it
    // is killed it certainly holds acked batches that no one has written.
    startPart('start:writer', { ...env(), WRITER_BATCH_MAX_WAIT_MS: '60000' }),
    startPart('start:writer', env()),
  ]);
  storage = await openStorage(storageSettings({ CLICKHOUSE_URL: endpoint.url, CLICKHOUSE_USER: 'aos', CLICKHOUSE_PASSWORD: 'split-secret' }));
  key = (await createApiKey(storage, { projectId: 'split', name: 'split test', scopes: ['ingest', 'read'] })).secret;
}, 180_000);

afterAll(async () => {
  for (const part of [ingest, query, ...(writers ?? [])]) part?.process.kill('SIGKILL');
  await storage?.close();
  await endpoint?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Exports one trace of `spans` spans through the stock OTLP/HTTP protobuf exporter; resolves once ingest acked it. */
async function exportTrace(spans: number): Promise<void> {
  const exporter = otlpExporter('proto', ingest.url, key);
  const code = await new Promise<ExportResultCode>((resolve) => exporter.export(recordSpans(spans, { 'split.test': true }), (r) => resolve(r.code)));
  await exporter.shutdown();
  expect(code).toBe(ExportResultCode.SUCCESS);
}

async function readApi<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${query.url}${url}`, { headers: { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as T };
}

async function storedFigures() {
  const window = `startTime=${started - 3_600_000}&endTime=${Date.now() + 3_600_000}`;
  const { status, body } = await readApi<{ traceCount: number; spanCount: number }>(`/api/v1/traces/summary?${window}`);
  expect(status).toBe(200);
  return body;
}

describe('split deployment', () => {
  it('applied each migration in one process only although four started together, and every part reports ready', async () => {
    // Each writer and query process logs what it applied (ingest applies none). Two processes
    // that both applied a migration both name it: the table of applied migrations, a
    // ReplacingMergeTree, would merge the second record away.
    const appliedBy = new Map<string, string[]>();
    for (const part of [query, ...writers]) {
      const lines = part.output().split('\n').filter((l) => l.includes('"applied migrations"'));
      expect(lines, `${part.script} logs what it applied once`).toHaveLength(1);
      for (const name of (JSON.parse(lines[0]!) as { applied: string[] }).applied) appliedBy.set(name, [...(appliedBy.get(name) ?? []), part.script]);
    }
    const migrations = loadMigrations('single').map((m) => m.name);
    expect([...appliedBy.keys()].sort()).toEqual([...migrations].sort());
    expect([...appliedBy].filter(([, by]) => by.length !== 1)).toEqual([]);
    for (const part of [ingest, query, ...writers]) {
      const res = await fetch(`${part.url}/readyz`);
      expect(res.status, `${part.script} /readyz: ${await res.clone().text()}`).toBe(200);
    }
  });

  it('stores what ingest acked through two writers, loses and duplicates nothing when one is killed, and query answers meanwhile', async () => {
    const TRACES = 24;
    const SPANS = 20;
    const [holder, other] = writers as [Part, Part];
    const ingestQueue = openIngestQueue({ env: env() });
    try {
      // The second writer is paused while the first half is sent: every batch goes to the first.
      other.process.kill('SIGSTOP');
      await Promise.all(Array.from({ length: TRACES / 2 }, () => exportTrace(SPANS)));
      await eventually(async () => ((await ingestQueue.queue.getActiveCount()) === TRACES / 2 ? true : undefined), 20_000, 'the first writer to hold every batch');
      holder.process.kill('SIGKILL');
      expect(await holder.exitWithin(10_000)).toMatchObject({ signal: 'SIGKILL' });
      other.process.kill('SIGCONT');
      const whileDown = await readApi<{ data: unknown[] }>('/api/v1/traces?limit=5');
      expect(whileDown.status).toBe(200);
    } finally {
      other.process.kill('SIGCONT');
      await ingestQueue.close();
    }
    for (let i = TRACES / 2; i < TRACES; i++) await exportTrace(SPANS);
    const figures = await eventually(
      async () => {
        const f = await storedFigures();
        return f.spanCount >= TRACES * SPANS ? f : undefined;
      },
      60_000,
      'every acked span to be readable through query',
    );
    expect(figures).toMatchObject({ traceCount: TRACES, spanCount: TRACES * SPANS });
    // Stored rows as they are, not as reads show them after deduplication: a batch stored
    // twice (the killed writer's batches replayed after it had written them) shows as rows
    // over spans, until a merge removes them; the engine's own count of rows written
    // (span_hour_writes, counted at each insert) shows it whatever merges did.
    const [stored] = await (
      await storage.client.query({
        query: "SELECT count() AS rows, uniqExact(trace_id, span_id) AS spans FROM spans WHERE project_id = 'split'",
        format: 'JSONEachRow',
      })
    ).json<{ rows: string; spans: string }>();
    expect({ rows: Number(stored!.rows), spans: Number(stored!.spans) }).toEqual({ rows: TRACES * SPANS, spans: TRACES * SPANS });
    const [written] = await (
      await storage.client.query({ query: "SELECT sum(written) AS rows FROM span_hour_writes WHERE project_id = 'split'", format: 'JSONEachRow' })
    ).json<{ rows: string }>();
    expect(Number(written!.rows)).toBe(TRACES * SPANS);
    expect((await storedFigures()).spanCount).toBe(TRACES * SPANS);
  });

  it('has query refuse a body over its API_MAX_BODY_BYTES, declared or chunked', async () => {
    for (const framing of ['content-length', 'chunked'] as const) {
      const answer = await streamedPost(`${query.url}/api/v1/trace-scores`, { 'x-api-key': key, 'content-type': 'application/json' }, 64 * 1024 * 1024, framing);
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ error: { code: 'payload_too_large', message: `the request body exceeds the limit of ${QUERY_MAX_BODY_BYTES} bytes` } });
    }
  });

  it('ends each part on SIGTERM within its shutdown bound', async () => {
    for (const part of [ingest, writers[1]!, query]) {
      const startedAt = Date.now();
      part.process.kill('SIGTERM');
      const exit = await part.exitWithin(SHUTDOWN_TIMEOUT_MS + 5_000);
      expect(exit, `${part.script}:\n${part.output().slice(-2000)}`).toEqual({ code: 0, signal: null });
      expect(Date.now() - startedAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 5_000);
    }
  });
});
