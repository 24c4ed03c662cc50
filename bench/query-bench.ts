// Trace search and analytics benchmark (issue 3): a large dataset written straight into the
// embedded engine, then each endpoint timed over HTTP next to the bare SQL it runs (the
// same statements straight through the ClickHouse client), in the same run. Prints
// figures; not a test.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SpanRow } from '@aos/domain';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { SPAN_COLUMNS, encodeSpanRows, findDueRollupHours, rollUpHour, type Storage } from '@aos/storage';
import { sqlRecorder } from './sql-recorder.ts';

const TRACES = Number(process.env.BENCH_TRACES ?? 1_000_000);
const SPANS_PER_TRACE = 10;
const PROJECTS = 4;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** Exports of the whole dataset timed (each next to its bare statements); the first one, recording them, is not. */
const EXPORT_RUNS = 3;
/** Only the cases whose name matches this (e.g. `list page`, `export`); all when unset. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const DAY = 86_400_000;
/** Set: the dataset is written there once and reused by later runs (their figures then skip the write). */
const KEEP_DIR = process.env.BENCH_DATA_DIR;
const MARKER = KEEP_DIR ? path.join(KEEP_DIR, 'bench-dataset.json') : '';
const reused = KEEP_DIR && existsSync(MARKER) ? (JSON.parse(readFileSync(MARKER, 'utf8')) as { traces: number; now: number }) : null;
if (reused && reused.traces !== TRACES) throw new Error(`${KEEP_DIR} holds ${reused.traces} traces, not BENCH_TRACES=${TRACES}`);
/** The dataset's trace ids: v2 scatters them as real ones are (v1 had them in time order, which flattered reads by time). */
const ID_SCHEME = 2;
if (reused && (reused as { ids?: number }).ids !== ID_SCHEME) throw new Error(`${KEEP_DIR} holds a dataset with time-ordered trace ids; remove it to write one with scattered ids`);
const now = reused?.now ?? Date.now();
const start = now - 7 * DAY;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** Trace t of project p: 32 hex digits scattered like real (random) trace ids, the same on every run. */
const traceIdOf = (p: number, t: number) => createHash('md5').update(`${p}:${t}`).digest('hex');
const seconds = (ms: number) => (ms / 1000).toFixed(9);

function row(projectId: string, traceId: string, spanIndex: number, at: number, extra: Partial<SpanRow> = {}): SpanRow {
  const llm = spanIndex % 3 === 1;
  return {
    project_id: projectId, trace_id: traceId, span_id: hex(spanIndex + 1, 16), parent_span_id: spanIndex === 0 ? '' : hex(1, 16),
    name: spanIndex === 0 ? 'agent' : llm ? 'chat gpt-4o' : `tool-${spanIndex % 5}`, kind: 'internal',
    span_type: spanIndex === 0 ? 'agent' : llm ? 'llm' : 'tool', start_time: seconds(at + spanIndex * 100), end_time: seconds(at + spanIndex * 100 + 80),
    duration_ms: 80, status: spanIndex === 7 && at % 13 === 0 ? 'error' : 'ok', status_message: '', service_name: 'bench', environment: at % 2 ? 'prod' : 'staging',
    platform: 'otel-genai', scope_name: 'bench', scope_version: '1', agent_name: '', model: llm ? 'gpt-4o' : '', provider: llm ? 'openai' : '',
    input: spanIndex === 0 ? 'Where is my order?' : '', output: spanIndex === 0 ? 'It ships tomorrow.' : '',
    input_messages: '', output_messages: '', system_instructions: '',
    input_tokens: llm ? 1200 : 0, output_tokens: llm ? 200 : 0, total_tokens: llm ? 1400 : 0, cached_input_tokens: 0, reasoning_tokens: 0,
    cost: llm ? 0.005 : 0, cost_source: llm ? 'price_table' : '', session_id: spanIndex === 0 ? `s-${Math.floor(at / 1000) % 20_000}` : '',
    user_id: spanIndex === 0 ? `u-${at % 5000}` : '', tool_name: llm || spanIndex === 0 ? '' : `tool-${spanIndex % 5}`, tool_arguments: '', tool_call_id: '',
    time_to_first_token_ms: null, attributes: {}, attribute_refs: {}, resource_attributes: { 'service.name': 'bench' }, events: '[]', links: '[]',
    quality_flags: [], masked_rules: [], dimensions: {}, log_record_fields: [], ingested_at: now, ...extra,
  };
}

/**
 * Medians of RUNS timings of each function, the two taking turns so that both see the same
 * caches and background merges (one after the other, the second always ran warmer).
 */
async function timeBoth(first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<[number, number]> {
  const samples: [number[], number[]] = [[], []];
  await first(); // one unmeasured call each: the first read of a part loads its marks
  await second();
  for (let i = 0; i < RUNS; i++) {
    for (const [k, fn] of [first, second].entries()) {
      const t0 = performance.now();
      await fn();
      samples[k]!.push(performance.now() - t0);
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [median(samples[0]), median(samples[1])];
}

/** TRACES traces of 10 spans over 7 days in 4 projects, plus the scale cases. */
async function writeDataset(storage: Storage) {
  const t0 = performance.now();
  const perProject = Math.floor(TRACES / PROJECTS);
  for (let p = 0; p < PROJECTS; p++) {
    const projectId = p === 0 ? 'default' : `project-${p}`;
    for (let first = 0; first < perProject; first += 10_000) {
      const rows: SpanRow[] = [];
      for (let t = first; t < Math.min(first + 10_000, perProject); t++) {
        const at = start + Math.floor(((t + 0.5) / perProject) * 7 * DAY);
        const traceId = traceIdOf(p, t);
        for (let s = 0; s < SPANS_PER_TRACE; s++) rows.push(row(projectId, traceId, s, at));
      }
      await storage.insertRows('spans', SPAN_COLUMNS, 'JSONCompactEachRow', encodeSpanRows(rows));
    }
  }
  // A session of 50,000 traces, a trace of 20,000 spans, and 20 traces whose root input is 1 MB.
  const big: SpanRow[] = [];
  for (let t = 0; t < 50_000; t++) big.push(row('default', traceIdOf(100, t), 0, now - DAY + t * 10, { session_id: 'huge-session' }));
  for (let s = 0; s < 20_000; s++) big.push(row('default', 'ab'.repeat(16), s, now - 2 * DAY + s));
  const mb = 'x'.repeat(1024 * 1024);
  for (let t = 0; t < 20; t++) big.push(row('default', traceIdOf(101, t), 0, now - 60_000 + t, { input: mb, output: mb }));
  for (let i = 0; i < big.length; i += 10_000) {
    await storage.insertRows('spans', SPAN_COLUMNS, 'JSONCompactEachRow', encodeSpanRows(big.slice(i, i + 10_000)));
  }
  const spans = TRACES * SPANS_PER_TRACE + big.length;
  console.log(`dataset: ${TRACES} traces / ${spans} spans in ${PROJECTS} projects written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  if (KEEP_DIR) writeFileSync(MARKER, JSON.stringify({ traces: TRACES, now, ids: ID_SCHEME }));
}

/**
 * What the writer's rollup pass does once hours have gone quiet, done now for every hour
 * but the dataset's last two: an hour's rollups also wait for the hour after it, so in a
 * running service the current hour and the one before it are read from spans.
 */
async function rollUpPastHours(storage: Storage) {
  const t0 = performance.now();
  const liveFrom = Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000;
  const due = (await findDueRollupHours(storage, { nowMs: Date.now(), quietMs: 0, limit: 100_000 })).filter((h) => h.hourMs < liveFrom);
  for (const hour of due) await rollUpHour(storage, hour);
  console.log(`rollups: ${due.length} project-hours rolled up in ${((performance.now() - t0) / 1000).toFixed(1)} s (from ${new Date(liveFrom).toISOString()} on, spans are read)`);
}

async function main() {
  if (KEEP_DIR) mkdirSync(KEEP_DIR, { recursive: true });
  const dataDir = KEEP_DIR ?? mkdtempSync(path.join(tmpdir(), 'aos-qbench-'));
  // The writer's background passes are kept out of the timings (and out of the recorded
  // statements): the bench rolls up past hours itself (rollUpPastHours) and keeps the last
  // two live; trace flags would otherwise judge this whole dataset (all of it ingested
  // within their lookback) 500 traces per tick meanwhile.
  const service = await startAllInOne(
    {
      DATA_DIR: dataDir, PORT: '0', OTLP_GRPC_PORT: '0', LOG_LEVEL: 'warn',
      TRACE_ROLLUP_QUIET_MS: String(365 * DAY), TRACE_ROLLUP_INTERVAL_MS: String(DAY), TRACE_FLAGS_INTERVAL_MS: String(DAY),
    },
    silentLogger,
  );
  const { storage } = service;
  const key = service.createdKey?.secret ?? readFileSync(path.join(dataDir, 'dev-api-key.txt'), 'utf8').trim();
  const api = (p: string) => fetch(`${service.url}${p}`, { headers: { 'x-api-key': key } }).then(async (r) => {
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${await r.text()}`);
    return r.arrayBuffer();
  });
  try {
    if (!reused) await writeDataset(storage);
    else console.log(`dataset: reusing ${TRACES} traces in ${dataDir}`);
    await rollUpPastHours(storage);

    const window = `startTime=${new Date(start).toISOString()}&endTime=${new Date(now + 60_000).toISOString()}`;
    const cases: Array<[string, string, string]> = [
      ['summary over the project (7 days)', '≤ 150 ms', `/api/v1/traces/summary?${window}`],
      ['trace list page (50)', '≤ 50 ms', `/api/v1/traces?${window}&limit=50`],
      ['trace with its tree (10 spans)', '≤ 20 ms', `/api/v1/traces/${traceIdOf(0, 5)}`],
      ['timeseries over 7 days (hourly)', '≤ 200 ms', `/api/v1/traces/timeseries?${window}&measure=trace_count&interval=1h`],
      ['trace of 20,000 spans with its tree', 'bounded', `/api/v1/traces/${'ab'.repeat(16)}`],
      ['session of 50,000 traces', 'bounded', '/api/v1/traces/sessions/huge-session'],
      ['list page over 1 MB inputs (last 5 min)', 'bounded', `/api/v1/traces?startTime=${new Date(now - 300_000).toISOString()}&limit=20`],
    ];
    const sql = sqlRecorder(storage.client);
    console.log('case | target | API median ms | bare SQL median ms (statements) | overhead');
    for (const [name, target, path] of cases.filter(([name]) => !ONLY || ONLY.test(name))) {
      await api(path); // caches warm (the key, project settings): their lookups are not the call's statements
      const statements = await sql.record(() => api(path));
      const [apiMs, bareMs] = await timeBoth(() => api(path), () => sql.replay(statements));
      console.log(`${name} | ${target} | ${apiMs.toFixed(1)} | ${bareMs.toFixed(1)} (${statements.length}) | ${(((apiMs - bareMs) / bareMs) * 100).toFixed(0)}%`);
    }
    if (ONLY && !ONLY.test('export')) return;
    // Export rate: the project's traces as JSON Lines, RSS sampled while streaming, taking
    // turns with the same statements bare (one after the other); medians of EXPORT_RUNS each.
    const rss0 = process.memoryUsage.rss();
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 200);
    let bytes = 0;
    let rows = 0;
    const exportOnce = async () => {
      bytes = 0;
      rows = 0;
      const res = await fetch(`${service.url}/api/v1/traces/export?${window}&format=jsonl`, { headers: { 'x-api-key': key } });
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        // Counted as a Buffer: its indexOf is memchr, a Uint8Array's a loop (~50 ms per export more).
        const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
        for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) rows++;
      }
    };
    await exportOnce(); // as above, and the first read of each part
    const statements = await sql.record(exportOnce);
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < EXPORT_RUNS; i++) {
      for (const [k, fn] of [exportOnce, () => sql.replay(statements)].entries()) {
        const t0 = performance.now();
        await fn();
        times[k]!.push((performance.now() - t0) / 1000);
      }
    }
    clearInterval(sampler);
    const [s, bareS] = times.map((xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!) as [number, number];
    console.log(
      `export: ${rows} traces, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${s.toFixed(2)} s = ${Math.round(rows / s)} rows/s (target ≥ 200,000); ` +
        `RSS ${(rss0 / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB; ` +
        `bare SQL (${statements.length} statements) ${bareS.toFixed(2)} s = ${Math.round(rows / bareS)} rows/s; overhead ${(((s - bareS) / bareS) * 100).toFixed(0)}%`,
    );
  } finally {
    await service.stop();
    if (!KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
