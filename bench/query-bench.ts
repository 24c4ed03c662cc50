// Trace search and analytics benchmark (issue 3): a large dataset generated inside the
// embedded engine (query-dataset.ts), at one size or growing through several (the scale
// curve), then at each size each endpoint timed over HTTP next to the bare SQL it runs (the
// same statements straight through the ClickHouse client), in the same run. Prints
// figures; not a test.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { findDueRollupHours, rollUpHours, rollupRuns, type DueRollupHour, type Storage } from '@aos/storage';
import { BIG_TRACE_ID, DAY, PROJECTS, SPANS_PER_TRACE, checkWritersAgree, traceIdOf, writeScaleCases, writeSliceSql } from './query-dataset.ts';
import { sqlRecorder } from './sql-recorder.ts';

/**
 * The dataset sizes (traces) the cases run at, in order: BENCH_SCALE=100000,1000000,10000000
 * prints a scale curve, each size appended to the one before; BENCH_TRACES one size.
 */
const SIZES = (process.env.BENCH_SCALE ?? process.env.BENCH_TRACES ?? '1000000').split(',').map(Number);
if (SIZES.some((n, i) => !Number.isInteger(n) || n < PROJECTS || (i > 0 && n <= SIZES[i - 1]!))) {
  throw new Error(`BENCH_SCALE must be growing trace counts, got ${SIZES.join(',')}`);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/**
 * Set: hours are not rolled up (at 100M spans the pass takes half an hour on two busy
 * cores); those without exact rollups are read from spans, so only the cases that read
 * recent hours or one trace (list pages, trees, sessions) are figures of a running service.
 */
const SKIP_ROLLUPS = process.env.BENCH_SKIP_ROLLUPS === '1';
/** Set: the rollups are computed hour by hour first, then in runs of hours, both timed (rollUpPastHours). */
const COMPARE_ROLLUPS = process.env.BENCH_ROLLUPS_COMPARE === '1';
/** Exports of the whole dataset timed (each next to its bare statements); the first one, recording them, is not. */
const EXPORT_RUNS = 3;
/** Only the cases whose name matches this (e.g. `list page`, `export`); all when unset. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
/** Set: the dataset is written there once and reused (and grown) by later runs (their figures then skip the write). */
const KEEP_DIR = process.env.BENCH_DATA_DIR;
const MARKER = KEEP_DIR ? path.join(KEEP_DIR, 'bench-dataset.json') : '';
const reused = KEEP_DIR && existsSync(MARKER) ? (JSON.parse(readFileSync(MARKER, 'utf8')) as { traces: number; now: number; ids?: number }) : null;
if (reused && reused.traces > SIZES[0]!) throw new Error(`${KEEP_DIR} holds ${reused.traces} traces, more than the first size ${SIZES[0]}`);
/** The dataset's trace ids: v2 scatters them as real ones are (v1 had them in time order, which flattered reads by time). */
const ID_SCHEME = 2;
if (reused && reused.ids !== ID_SCHEME) throw new Error(`${KEEP_DIR} holds a dataset with time-ordered trace ids; remove it to write one with scattered ids`);
const now = reused?.now ?? Date.now();
const start = now - 7 * DAY;

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

/**
 * Grows the dataset from `loaded` to `traces` traces of 10 spans (over 7 days in 4
 * projects): the new traces are one more slice spread over the same 7 days. The first
 * slice comes with the scale cases, and is preceded by the check that both writers
 * write the same rows.
 */
async function growDataset(storage: Storage, loaded: number, traces: number) {
  if (loaded === 0) await checkWritersAgree(storage, { from: 0, to: 500, start, now });
  const t0 = performance.now();
  await writeSliceSql(storage, 'spans', { from: Math.floor(loaded / PROJECTS), to: Math.floor(traces / PROJECTS), start, now });
  const extra = loaded === 0 ? await writeScaleCases(storage, now) : 0;
  const seconds = (performance.now() - t0) / 1000;
  const spans = (Math.floor(traces / PROJECTS) - Math.floor(loaded / PROJECTS)) * PROJECTS * SPANS_PER_TRACE + extra;
  console.log(`dataset: ${loaded} → ${traces} traces: ${spans} spans written in ${seconds.toFixed(0)} s (${Math.round(spans / seconds)} spans/s)`);
  if (KEEP_DIR) writeFileSync(MARKER, JSON.stringify({ traces, now, ids: ID_SCHEME }));
  return seconds;
}

/** Spans stored (every version of a row until merges collapse them), their bytes on disk and active parts. */
async function spansOnDisk(storage: Storage): Promise<{ rows: number; bytes: number; parts: number }> {
  const result = await storage.client.query({
    query: `
      SELECT toString(sum(rows)) AS rows, toString(sum(bytes_on_disk)) AS bytes, toString(count()) AS parts
      FROM system.parts WHERE active AND database = currentDatabase() AND table = 'spans'`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: string; bytes: string; parts: string }>();
  return { rows: Number(row!.rows), bytes: Number(row!.bytes), parts: Number(row!.parts) };
}

/** How long the timings wait at most for the engine's merges of spans to end. */
const MERGE_WAIT_S = Number(process.env.BENCH_MERGE_WAIT_S ?? 900);

/**
 * Waits for the engine's merges of spans to end before anything is timed. A kept dataset's
 * parts are merged whenever a service opens it: on the 100M set each start began a merge of
 * 53 parts (1.9 GiB, about a minute on both cores) that the short runs of a few cases never
 * saw end, so every figure was taken beside it and the next run began it again. A service
 * that stays up finishes it once.
 */
async function settleMerges(storage: Storage) {
  const merging = async () => {
    const result = await storage.client.query({ query: "SELECT count() AS n FROM system.merges WHERE database = currentDatabase() AND table = 'spans'", format: 'JSONEachRow' });
    return Number((await result.json<{ n: string }>())[0]!.n);
  };
  const before = await spansOnDisk(storage);
  const t0 = performance.now();
  while ((await merging()) > 0 && performance.now() - t0 < MERGE_WAIT_S * 1000) await new Promise((r) => setTimeout(r, 1000));
  const waited = (performance.now() - t0) / 1000;
  if (waited >= 1) console.log(`merges of spans: waited ${waited.toFixed(0)} s, ${before.parts} → ${(await spansOnDisk(storage)).parts} parts${(await merging()) > 0 ? ' (still merging: timings run beside it)' : ''}`);
}

/**
 * What the writer's rollup pass does once hours have gone quiet, done now for every hour
 * but the dataset's last two: an hour's rollups also wait for the hour after it, so in a
 * running service the current hour and the one before it are read from spans. With
 * BENCH_ROLLUPS_COMPARE=1 the same hours are first rolled up one statement per hour (as
 * before runs of hours, issue 33), then again in runs, and both times printed.
 */
async function rollUpPastHours(storage: Storage) {
  const liveFrom = Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000;
  const due = (await findDueRollupHours(storage, { nowMs: Date.now(), quietMs: 0, limit: 100_000 })).filter((h) => h.hourMs < liveFrom);
  const timed = async (runs: DueRollupHour[][]) => {
    const t0 = performance.now();
    for (const run of runs) await rollUpHours(storage, run);
    return (performance.now() - t0) / 1000;
  };
  const runs = rollupRuns(due);
  const hourByHour = COMPARE_ROLLUPS ? await timed(due.map((h) => [h])) : undefined;
  const inRuns = await timed(runs);
  console.log(`rollups: ${due.length} project-hours in ${runs.length} runs rolled up in ${inRuns.toFixed(1)} s (from ${new Date(liveFrom).toISOString()} on, spans are read)`);
  if (hourByHour !== undefined) {
    console.log(`rollups hour by hour (one statement per hour, same hours, same run): ${hourByHour.toFixed(1)} s; in runs / hour by hour: ${(inRuns / hourByHour).toFixed(2)}`);
  }
}

/** The figures of one size: each case's API median (ms), and the export's rate (rows/s). */
type Figures = Map<string, number>;

/**
 * Times each case over HTTP next to its bare SQL, then the export; prints each as it is
 * measured and returns the API figures for the curve.
 */
async function runCases(api: (p: string) => Promise<ArrayBuffer>, exportUrl: string, key: string, sql: ReturnType<typeof sqlRecorder>): Promise<Figures> {
  const figures: Figures = new Map();
  console.log('case | target | API median ms | bare SQL median ms (statements) | overhead');
  for (const [name, target, path] of CASES.filter(([name]) => !ONLY || ONLY.test(name))) {
    await api(path); // caches warm (the key, project settings): their lookups are not the call's statements
    const statements = await sql.record(() => api(path));
    const [apiMs, bareMs] = await timeBoth(() => api(path), () => sql.replay(statements));
    figures.set(name, apiMs);
    console.log(`${name} | ${target} | ${apiMs.toFixed(1)} | ${bareMs.toFixed(1)} (${statements.length}) | ${(((apiMs - bareMs) / bareMs) * 100).toFixed(0)}%`);
  }
  if (ONLY && !ONLY.test('export')) return figures;
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
    const res = await fetch(exportUrl, { headers: { 'x-api-key': key } });
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
  figures.set(EXPORT_CASE, rows / s);
  console.log(
    `export: ${rows} traces, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${s.toFixed(2)} s = ${Math.round(rows / s)} rows/s (target ≥ 200,000); ` +
      `RSS ${(rss0 / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB; ` +
      `bare SQL (${statements.length} statements) ${bareS.toFixed(2)} s = ${Math.round(rows / bareS)} rows/s; overhead ${(((s - bareS) / bareS) * 100).toFixed(0)}%`,
  );
  return figures;
}

const WINDOW = `startTime=${new Date(start).toISOString()}&endTime=${new Date(now + 60_000).toISOString()}`;
/** Name, target, URL. */
const CASES: Array<[string, string, string]> = [
  ['summary over the project (7 days)', '≤ 150 ms', `/api/v1/traces/summary?${WINDOW}`],
  ['trace list page (50)', '≤ 50 ms', `/api/v1/traces?${WINDOW}&limit=50`],
  ['trace with its tree (10 spans)', '≤ 20 ms', `/api/v1/traces/${traceIdOf(0, 5)}`],
  ['timeseries over 7 days (hourly)', '≤ 200 ms', `/api/v1/traces/timeseries?${WINDOW}&measure=trace_count&interval=1h`],
  ['trace of 20,000 spans with its tree', 'bounded', `/api/v1/traces/${BIG_TRACE_ID}`],
  ['session of 50,000 traces', 'bounded', '/api/v1/traces/sessions/huge-session'],
  ['list page over 1 MB inputs (last 5 min)', 'bounded', `/api/v1/traces?startTime=${new Date(now - 300_000).toISOString()}&limit=20`],
];
const EXPORT_CASE = 'export (rows/s)';

/** One table of every case's API median at every size, with the load figures of each size. */
function printCurve(sizes: Array<{ traces: number; loadS: number; disk: { rows: number; bytes: number; parts: number }; figures: Figures }>) {
  const targets = new Map([...CASES.map(([name, target]): [string, string] => [name, target]), [EXPORT_CASE, '≥ 200,000']]);
  console.log('\nscale curve (API medians, ms; export in rows/s):');
  console.log(`case | target | ${sizes.map((s) => `${s.traces.toLocaleString('en')} traces`).join(' | ')}`);
  console.log(`spans stored | | ${sizes.map((s) => s.disk.rows.toLocaleString('en')).join(' | ')}`);
  console.log(`on disk (parts) | | ${sizes.map((s) => `${(s.disk.bytes / 2 ** 30).toFixed(2)} GiB (${s.disk.parts})`).join(' | ')}`);
  console.log(`load time (this size's slice) | | ${sizes.map((s) => `${s.loadS.toFixed(0)} s`).join(' | ')}`);
  for (const [name, target] of targets) {
    if (!sizes.some((s) => s.figures.has(name))) continue;
    const cell = (v: number | undefined) => (v === undefined ? '–' : name === EXPORT_CASE ? Math.round(v).toLocaleString('en') : v.toFixed(1));
    console.log(`${name} | ${target} | ${sizes.map((s) => cell(s.figures.get(name))).join(' | ')}`);
  }
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
  const sql = sqlRecorder(storage.client);
  const curve: Parameters<typeof printCurve>[0] = [];
  try {
    let loaded = reused?.traces ?? 0;
    if (reused) console.log(`dataset: reusing ${loaded} traces in ${dataDir}`);
    for (const traces of SIZES) {
      const loadS = loaded < traces ? await growDataset(storage, loaded, traces) : 0;
      loaded = traces;
      if (SKIP_ROLLUPS) console.log('rollups: skipped (BENCH_SKIP_ROLLUPS=1)');
      else await rollUpPastHours(storage);
      await settleMerges(storage);
      const disk = await spansOnDisk(storage);
      console.log(`\n${traces} traces: ${disk.rows} span rows, ${(disk.bytes / 2 ** 30).toFixed(2)} GiB on disk in ${disk.parts} parts`);
      curve.push({ traces, loadS, disk, figures: await runCases(api, `${service.url}/api/v1/traces/export?${WINDOW}&format=jsonl`, key, sql) });
    }
    if (curve.length > 1) printCurve(curve);
  } finally {
    await service.stop();
    if (!KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
