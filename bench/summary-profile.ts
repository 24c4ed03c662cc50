// Where the summary's time goes at scale (issue 33): over a kept dataset (BENCH_DATA_DIR, a
// copy: merges of spans are stopped in it meanwhile), the 7-day summary of the query bench
// and its parts taking turns (the live hours' per-trace figures, the whole hours' figures,
// the flags), variants of the live part (without FINAL, settings) and what each group of
// per-trace aggregates adds to grouping the live spans by trace: wall, engine (FORMAT JSON
// statistics) and process CPU; before them the API call, summarizeTraces and its rollup
// lookup. PROFILE_ONLY picks variants by name. Prints figures; not a test.
import { medianMs, startKeptService } from './kept-service.ts';
import { traceFiguresSql, type TraceRollupColumn } from '../packages/storage/src/traces/aggregate.ts';
import { traceFilterSql } from '../packages/storage/src/traces/filter.ts';
import { HOUR_FIGURE_COLUMNS, HOUR_FIGURE_INPUTS, HOUR_FIGURE_STATES_SQL, SUMMARY_FROM_HOUR_FIGURES_SQL } from '../packages/storage/src/traces/hour-figures.ts';
import { rollupsToRead, traceRowsSql, wholeHours, wholeHoursOf } from '../packages/storage/src/traces/rows.ts';
import { summarizeTraces, traceSummarySql } from '../packages/storage/src/traces/summary.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const DAY = 86_400_000;
const { service, now, key } = await startKeptService(process.env.BENCH_DATA_DIR);
try {
  const { storage } = service;
  const filter = { projectId: process.env.PROFILE_PROJECT ?? 'default', startTimeMs: now - 7 * DAY, endTimeMs: now + 60_000 };
  const rollups = await rollupsToRead(storage, filter);
  const full = traceSummarySql(filter, rollups);
  const sql = traceFilterSql(filter);
  const whole = wholeHours(filter, rollups);
  const traces = traceRowsSql(filter, sql, rollups, { readElsewhere: whole, columns: HOUR_FIGURE_INPUTS });
  const live = `SELECT ${HOUR_FIGURE_STATES_SQL} FROM (${traces}) AS t WHERE ${sql.traceConditions.join(' AND ')}`;
  const params: Record<string, unknown> = { ...full.params, ...sql.params };
  const wholeOnly = `SELECT ${SUMMARY_FROM_HOUR_FIGURES_SQL} FROM (SELECT ${HOUR_FIGURE_COLUMNS} FROM ${wholeHoursOf('trace_hour_figures', whole, params)})`;
  const liveRanges = /PREWHERE project_id = \{projectId:String\} AND (\(\(start_time[^\n]*?\)\))/.exec(traces)?.[1];
  console.log(`rolled-up hours ${rollups.length}, whole ${whole.length}; live ranges: ${liveRanges}`);
  console.log(Object.fromEntries(Object.entries(params).filter(([k]) => /^live|^scan|^start|^end/.test(k))));
  const flagsOf = (q: string) => q.slice(q.indexOf('CROSS JOIN (') + 'CROSS JOIN ('.length, q.lastIndexOf(') AS summary_flags'));
  const spansWhere = `PREWHERE project_id = {projectId:String} AND ${liveRanges}`;
  // Groups of the trace figures as the service defines them (aggregate.ts), each with the
  // start the window needs: what each group adds to grouping the live spans by trace.
  const FIGURE_GROUPS: Record<string, TraceRollupColumn[]> = {
    'start only': [],
    'end, count, errors': ['trace_end', 'span_count', 'error_count'],
    'session, user': ['trace_session_id', 'trace_user_id'],
    'usage (tokens, cost)': ['trace_input_tokens', 'trace_output_tokens', 'trace_total_tokens', 'trace_cached_input_tokens', 'trace_reasoning_tokens', 'trace_cost'],
    'flagged, masked counts': ['flagged_span_count', 'masked_span_count'],
    'masked rules': ['trace_masked_rules'],
  };
  const variants: Record<string, string> = {
    'summary (current)': full.query,
    'live part': `SELECT ${SUMMARY_FROM_HOUR_FIGURES_SQL} FROM (${live})`,
    'live part, no FINAL': `SELECT ${SUMMARY_FROM_HOUR_FIGURES_SQL} FROM (${live.replace('FROM spans FINAL', 'FROM spans')})`,
    'whole hours part': wholeOnly,
    'flags part': `SELECT * FROM (${flagsOf(full.query)})`,
    'live count FINAL': `SELECT count() FROM spans FINAL ${spansWhere}`,
    'live count': `SELECT count() FROM spans ${spansWhere}`,
    // sipHash64 of every column keeps each figure from being dropped as unused.
    ...Object.fromEntries(Object.entries(FIGURE_GROUPS).map(([name, group]) => [`per trace: ${name}`, `SELECT count(), sum(sipHash64(*)) FROM (SELECT ${traceFiguresSql(['trace_start', ...group])} FROM spans FINAL ${spansWhere} GROUP BY trace_id) WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)}`])),
    ...Object.fromEntries(['max_threads = 1', 'max_threads = 4', 'enable_analyzer = 0', 'compile_aggregate_expressions = 0', 'optimize_aggregation_in_order = 1', 'max_block_size = 8192'].map((set) => [`live part ${set}`, `SELECT ${SUMMARY_FROM_HOUR_FIGURES_SQL} FROM (${live}) SETTINGS ${set}`])),
    'SELECT 1': 'SELECT 1',
  };
  const url = `${service.url}/api/v1/traces/summary?startTime=${new Date(filter.startTimeMs).toISOString()}&endTime=${new Date(filter.endTimeMs).toISOString()}`;
  const timed = async (name: string, fn: () => Promise<unknown>) => console.log(`${name}: median ${(await medianMs(fn, RUNS)).toFixed(1)} ms`);
  await timed('HTTP summary', () => fetch(url, { headers: { 'x-api-key': key } }).then((r) => r.arrayBuffer()));
  await timed('summarizeTraces', () => summarizeTraces(storage, filter));
  await timed('rollupsToRead', () => rollupsToRead(storage, filter));
  await timed('traceSummarySql (JS)', async () => traceSummarySql(filter, rollups));
  await timed('the statement, JSONEachRow', () => storage.client.query({ query: full.query, query_params: full.params, format: 'JSONEachRow' }).then((r) => r.json()));
  const only = process.env.PROFILE_ONLY ? new RegExp(process.env.PROFILE_ONLY) : null;
  const chosen = Object.entries(variants).filter(([name]) => !only || only.test(name));
  const samples = new Map(chosen.map(([name]) => [name, { wall: [] as number[], engine: [] as number[], cpu: [] as number[], stats: '' }]));
  await storage.client.command({ query: 'SYSTEM STOP MERGES spans' });
  const run = (query: string) => storage.client.query({ query, query_params: params, format: 'JSON' }).then((r) => r.json<{ data: unknown[]; statistics: { elapsed: number; rows_read: number; bytes_read: number } }>());
  for (const [name, query] of chosen) console.log(name, JSON.stringify((await run(query)).data).slice(0, 300));
  for (let i = 0; i < RUNS; i++) {
    for (const [name, query] of chosen) {
      const s = samples.get(name)!;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const answer = await run(query);
      if (!answer.statistics) throw new Error(`${name}: the answer has no statistics`);
      s.wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      s.cpu.push((c.user + c.system) / 1000);
      s.engine.push(answer.statistics!.elapsed * 1000);
      s.stats = `read_rows ${answer.statistics!.rows_read} | read_bytes ${answer.statistics!.bytes_read}`;
    }
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!.toFixed(1);
  console.log('statement | wall ms | engine ms | process CPU ms | read');
  for (const [name, s] of samples) console.log(`${name} | ${mid(s.wall)} | ${mid(s.engine)} | ${mid(s.cpu)} | ${s.stats}`);
} finally {
  await service.stop();
}
