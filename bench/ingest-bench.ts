// End-to-end ingest benchmark in the all-in-one mode, or with BENCH_MODE=split the parts
// as processes of their own (bench/split-bench.ts; see docs/benchmarks.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeProtobufExport } from '@aos/otlp';
import { loadPriceTable, spanRowsFromExport } from '@aos/domain';
import { findFreePort } from '@aos/local-services';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { SPAN_COLUMNS, createApiKey, encodeSpanRowsRowBinary, type Storage } from '@aos/storage';
import { agentRequest } from './agent-spans.ts';
import { ackFigures, endToEnd, startSender, type Target } from './ingest-phases.ts';
import { printCpuBreakdown, startCpuBreakdown } from './cpu-breakdown.ts';
import { holdRate, searchHeldRate } from './held-rate.ts';
import { trackPeakRss } from './service-probe.ts';
import { mixedPhase } from './mixed-phase.ts';
import { describePhase, pacedPhase } from './paced-phase.ts';
import { runSplitBench } from './split-bench.ts';

const SENDERS = Number(process.env.BENCH_SENDERS ?? 4);
const POOL_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
/** The per-stage CPU breakdown of the first end-to-end phase (BENCH_CPU_BREAKDOWN=0 leaves it out). */
const CPU_BREAKDOWN = process.env.BENCH_CPU_BREAKDOWN !== '0';
/** Where to save that phase's CPU profiles, one .cpuprofile per JS thread (optional). */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;
/** Seconds the found held rate is held (issue 21 asks for 5 minutes); 0 skips the held-rate, half-load and mixed phases. */
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? 300);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 25);
const HELD_MAX_STEPS = Number(process.env.BENCH_HELD_MAX_STEPS ?? 7);
const HELD_START = Number(process.env.BENCH_HELD_START ?? 0.6);
const MIXED_SECONDS = Number(process.env.BENCH_MIXED_SECONDS ?? 30);
/**
 * Spans/s for the paced half of the mixed phase, run right after the first end-to-end phase
 * with every other phase left out: the reads under load (idle, paced, saturated) in a few
 * minutes instead of after the held-rate search.
 */
const MIXED_ONLY = Number(process.env.BENCH_MIXED_ONLY ?? 0);
/** Settings for the service under test, `NAME=value` separated by spaces (BENCH_SERVICE_ENV='ENGINE_THREADS_NICE=0'). */
const SERVICE_ENV = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '').split(/\s+/).filter(Boolean).map((setting) => {
    const eq = setting.indexOf('=');
    if (eq < 1) throw new Error(`BENCH_SERVICE_ENV: ${JSON.stringify(setting)} is not NAME=value`);
    return [setting.slice(0, eq), setting.slice(eq + 1)];
  }),
);

/** A policy of the kind a team would run: every common secret and PII kind, one custom id. */
const REALISTIC_POLICY = {
  rules: [
    { name: 'emails', detector: 'email', replacement: { style: 'hash' } },
    { name: 'cards', detector: 'credit_card', replacement: { style: 'keep_last', n: 4 } },
    { name: 'phones', detector: 'phone' },
    { name: 'ibans', detector: 'iban' },
    { name: 'ids', detector: 'national_id' },
    { name: 'secrets', detector: 'api_key' },
    { name: 'tokens', detector: 'bearer_token' },
    { name: 'jwts', detector: 'jwt' },
    { name: 'keys', detector: 'private_key' },
    { name: 'employee-id', pattern: '\\bEMP-\\d{6}\\b', fields: { input: true, output: true, attributes: ['user.*'] } },
  ],
};

/** Rows per second of the engine alone; `parseOnly` writes into a table that stores nothing, which leaves the engine's parser. */
async function bareInsertRate(storage: Storage, requests: number, blockRows = 50_000, parseOnly = false): Promise<number> {
  // The same kind of rows the writer produces, encoded the same way (RowBinary) up front:
  // only the engine is timed.
  const prices = loadPriceTable();
  const bodies: Buffer[][] = [];
  let rows = 0;
  let body: Buffer[] = [];
  let inBody = 0;
  for (let i = 0; i < requests; i++) {
    const decoded = decodeProtobufExport(agentRequest(1000, 900_000 + i).body);
    const normalized = spanRowsFromExport(decoded, { projectId: 'bare', receivedAtMs: Date.now(), prices, maxValueBytes: 262_144 });
    body.push(encodeSpanRowsRowBinary(normalized));
    inBody += normalized.length;
    if (inBody >= blockRows || i === requests - 1) {
      bodies.push(body);
      rows += inBody;
      body = [];
      inBody = 0;
    }
  }
  const table = parseOnly ? 'spans_parse_only' : 'spans_bare';
  await storage.client.command({ query: `CREATE TABLE IF NOT EXISTS ${table} AS spans${parseOnly ? ' ENGINE = Null' : ''}` });
  if (!parseOnly) await storage.client.command({ query: `TRUNCATE TABLE ${table}` });
  const t0 = performance.now();
  for (const b of bodies) await storage.insertRows(table, SPAN_COLUMNS, 'RowBinary', b);
  return rows / ((performance.now() - t0) / 1000);
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-bench-'));
  const service = await startAllInOne({ ...SERVICE_ENV, DATA_DIR: dataDir, PORT: '0', OTLP_GRPC_PORT: String(await findFreePort()), LOG_LEVEL: 'warn' }, silentLogger);
  if (Object.keys(SERVICE_ENV).length > 0) console.log(`service settings: ${JSON.stringify(SERVICE_ENV)}`);
  const key = service.createdKey!.secret;
  const http: Target = { transport: 'http', url: service.url, grpcAddress: service.grpcAddress!, key };
  // The service's phases and the bench's own bare inserts (rows it builds and writes into
  // the engine itself, in this process) each get a peak of their own.
  const servicePeak = trackPeakRss(service);
  const printPeak = () => console.log(`peak RSS of the service's phases (service process): ${servicePeak.describe()}`);
  try {
    const senders = Array.from({ length: SENDERS }, (_, i) => startSender(i, POOL_REQUESTS));
    const pools = await Promise.all(senders.map((s) => s.ready));
    const totalSpans = pools.reduce((n, p) => n + p.spans, 0);
    const totalBytes = pools.reduce((n, p) => n + p.bytes, 0);
    console.log(`pool: ${totalSpans} spans in ${SENDERS * POOL_REQUESTS} requests of 1000, ${(totalBytes / totalSpans).toFixed(0)} B/span protobuf, ${SENDERS} senders`);

    // Phase 1: every span once, timed until all are queryable.
    const cpu = CPU_BREAKDOWN ? await startCpuBreakdown({ senderPids: senders.map((s) => s.child.pid!), profileDir: CPU_PROFILE_DIR }) : undefined;
    const overHttp = await endToEnd(senders, http, service.storage, 'default', totalSpans);
    if (cpu) printCpuBreakdown(await cpu.stop(totalSpans));
    const { seconds: e2eSeconds, rate: e2eRate, ackSeconds } = overHttp;
    console.log(`end to end: ${totalSpans} spans queryable in ${e2eSeconds.toFixed(2)} s = ${Math.round(e2eRate)} spans/s (acks done after ${ackSeconds.toFixed(2)} s)`);
    console.log(`ack latency: ${ackFigures(overHttp.results)}`);
    console.log(`writer: ${service.writer.stats.inserts} inserts, ${(service.writer.stats.rows / Math.max(1, service.writer.stats.inserts)).toFixed(0)} rows per insert`);
    if (MIXED_ONLY > 0) {
      await mixedPhase(senders, http, service, { readKey: key, offered: MIXED_ONLY, seconds: MIXED_SECONDS });
      for (const s of senders) s.child.kill();
      printPeak();
      return;
    }

    // Phase 1 again over OTLP/gRPC (the same protobuf bytes, one channel per sender), then
    // over HTTP once more, each into a project of its own: gRPC runs between two HTTP runs,
    // so neither transport gains from going first (a cold process) or last (a fuller table).
    {
      const projectKey = async (projectId: string) => (await createApiKey(service.storage, { projectId, name: 'bench', scopes: ['ingest'] })).secret;
      const overGrpc = await endToEnd(senders, { ...http, transport: 'grpc', key: await projectKey('bench-grpc') }, service.storage, 'bench-grpc', totalSpans);
      console.log(`end to end over OTLP/gRPC: ${Math.round(overGrpc.rate)} spans/s (acks done after ${overGrpc.ackSeconds.toFixed(2)} s); ack latency: ${ackFigures(overGrpc.results)}`);
      const httpAgain = await endToEnd(senders, { ...http, key: await projectKey('bench-http-again') }, service.storage, 'bench-http-again', totalSpans);
      console.log('| transport | end to end | acked | ack p50 | ack p99 |');
      const runs = [['OTLP/HTTP protobuf (before)', overHttp], ['OTLP/gRPC', overGrpc], ['OTLP/HTTP protobuf (after)', httpAgain]] as const;
      for (const [name, run] of runs) {
        const p = (k: 'p50' | 'p99') => Math.max(...run.results.map((r) => r[k])).toFixed(1);
        console.log(`| ${name} | ${Math.round(run.rate)} spans/s | ${Math.round(totalSpans / run.ackSeconds)} spans/s | ${p('p50')} ms | ${p('p99')} ms |`);
      }
    }

    // Phase 1 again, into a project with a masking policy: what masking at ingest costs.
    {
      const maskedKey = (await createApiKey(service.storage, { projectId: 'bench-masked', name: 'bench', scopes: ['ingest', 'write'] })).secret;
      const saved = await fetch(`${service.url}/api/v1/trace-masking`, {
        method: 'POST',
        headers: { 'x-api-key': maskedKey, 'content-type': 'application/json' },
        body: JSON.stringify(REALISTIC_POLICY),
      });
      if (!saved.ok) throw new Error(`cannot save the masking policy: ${saved.status} ${await saved.text()}`);
      const masked = await endToEnd(senders, { ...http, key: maskedKey }, service.storage, 'bench-masked', totalSpans);
      console.log(
        `end to end with a ${REALISTIC_POLICY.rules.length}-rule masking policy: ${Math.round(masked.rate)} spans/s = ${((masked.rate / e2eRate) * 100).toFixed(0)}% of the run without (${masked.seconds.toFixed(2)} s)`,
      );
    }

    // Phase 2 (issue 21): the held rate, acks at half of it, and queries while ingesting.
    if (HOLD_SECONDS > 0) {
      const held = await searchHeldRate(senders, http, service, { endToEndRate: e2eRate, startFraction: HELD_START, stepSeconds: STEP_SECONDS, maxSteps: HELD_MAX_STEPS, holdSeconds: HOLD_SECONDS });
      if (held > 0) {
        await holdRate(senders, http, service, held, HOLD_SECONDS);
        const half = Math.round(held / 2);
        console.log(`ack latency at half of the held rate, ${STEP_SECONDS} s: ${describePhase(await pacedPhase(senders, http, service, half, STEP_SECONDS))}`);
        await mixedPhase(senders, http, service, { readKey: key, offered: half, seconds: MIXED_SECONDS });
      }
    }
    for (const s of senders) s.child.kill();
    printPeak();
    servicePeak.stop();

    const barePeak = trackPeakRss(service);
    const bare = await bareInsertRate(service.storage, 100);
    console.log(`bare insert of the same rows into the same engine: ${Math.round(bare)} rows/s`);
    // The engine's cost falls with rows per insert (docs/benchmarks.md, "Engine write"): the
    // ceiling at the blocks the writer really wrote, beside the one at 50,000-row blocks.
    const writerBlock = Math.round(service.writer.stats.rows / Math.max(1, service.writer.stats.inserts));
    console.log(`bare insert in the writer's mean block (${writerBlock} rows/insert): ${Math.round(await bareInsertRate(service.storage, 100, writerBlock))} rows/s`);
    console.log(`the engine's parser alone (same rows into a Null table, 50,000-row blocks): ${Math.round(await bareInsertRate(service.storage, 100, 50_000, true))} rows/s`);
    console.log(`ratio end to end / bare insert: ${(e2eRate / bare * 100).toFixed(0)}%`);
    console.log(`peak RSS during the bench's own bare inserts (not the service's work): ${barePeak.describe()}`);
    barePeak.stop();
  } finally {
    servicePeak.stop();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_MODE === 'split') await runSplitBench({ senders: SENDERS, poolRequests: Number(process.env.BENCH_REQUESTS ?? 100) });
else await main();
