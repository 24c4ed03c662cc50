// Where a trace lookup's time goes (issue 33): over a kept dataset (BENCH_DATA_DIR, a copy:
// merges of spans are stopped in it meanwhile), the API call over HTTP, its storage read, tree
// build and JSON apart, then the trace statement and variants of it taking turns: wall,
// engine (FORMAT JSON statistics), process CPU and engine events (system.events deltas; the
// embedded engine keeps no query_log). PROFILE_ONLY picks variants by name, PROFILE_EXPLAIN
// prints one's plan with its indexes. Prints figures; not a test.
import { medianMs, startKeptService } from './kept-service.ts';
import { getTraceWithSpans, type Storage } from '@aos/storage';
import { traceWithSpansSql } from '../packages/storage/src/traces/detail.ts';
import { API_SPAN_SQL } from '../packages/storage/src/traces/api-span.ts';
import { IN_TRACE_HOURS_SQL } from '../packages/storage/src/traces/trace-hours.ts';
import { buildSpanTree } from '../apps/query/src/routes/traces/span-tree.ts';
import { traceIdOf } from './query-dataset.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const traceId = traceIdOf(0, 5);

const median = (fn: () => unknown) => medianMs(fn, RUNS);

const { service, key } = await startKeptService(process.env.BENCH_DATA_DIR);
try {
  const { storage } = service;
  const url = `${service.url}/api/v1/traces/${traceId}`;
  const http = () => fetch(url, { headers: { 'x-api-key': key } }).then((r) => r.arrayBuffer());
  console.log(`HTTP GET ${RUNS} runs: median ${(await median(http)).toFixed(1)} ms`);
  const found = (await getTraceWithSpans(storage, 'default', traceId))!;
  console.log(`storage read (statement + rows): ${(await median(() => getTraceWithSpans(storage, 'default', traceId))).toFixed(2)} ms`);
  console.log(`tree build: ${(await median(() => buildSpanTree(found.spans))).toFixed(3)} ms`);
  console.log(`JSON: ${(await median(() => JSON.stringify({ ...found.trace, spans: buildSpanTree(found.spans) }))).toFixed(3)} ms`);
  const current = traceWithSpansSql('default', traceId);
  const where = `PREWHERE project_id = {projectId:String} AND ${IN_TRACE_HOURS_SQL} AND trace_id = {traceId:String}`;
  const dedupedFrom = (settings: string) => `(
      SELECT * FROM spans ${where}
      ORDER BY toDate(start_time), span_id, ingested_at DESC, toUInt64(splitByChar('_', _part)[2]) DESC, _part_offset DESC
      LIMIT 1 BY toDate(start_time), span_id ${settings})`;
  const noFinal = (settings: string) => current.query.replace(/FROM spans FINAL[\s\S]*?GROUP BY/, `FROM ${dedupedFrom(settings)} GROUP BY`);
  const variants: Record<string, string> = {
    current: current.query,
    'current max_threads=1': `${current.query} SETTINGS max_threads = 1`,
    'no FINAL, LIMIT 1 BY newest': noFinal(''),
    'no FINAL, LIMIT 1 BY newest, max_threads=1': `${noFinal('')} SETTINGS max_threads = 1`,
    'current without flags': current.query.replace(/,\s*\(\s*SELECT groupArray\(\(flags[\s\S]*?\) AS trace_flag_rows/, ''),
    'current without texts': current.query.replace(/SELECT[\s\S]*?AS trace_input,[\s\S]*?AS trace_output,/, 'SELECT '),
    'without texts and flags': current.query.replace(/,\s*\(\s*SELECT groupArray\(\(flags[\s\S]*?\) AS trace_flag_rows/, '').replace(/SELECT[\s\S]*?AS trace_input,[\s\S]*?AS trace_output,/, 'SELECT '),
    'texts only': current.query.replace(/,\s*arraySort[\s\S]*AS trace_flag_rows/, ''),
    'count FINAL': `SELECT count() FROM spans FINAL ${where}`,
    'count no FINAL': `SELECT count() FROM spans ${where}`,
    'FINAL rows, light': `SELECT ${API_SPAN_SQL}, session_id, user_id, environment, platform FROM spans FINAL ${where}`,
    'current use_skip_indexes=0': `${current.query} SETTINGS use_skip_indexes = 0`,
    'current enable_analyzer=0': `${current.query} SETTINGS enable_analyzer = 0`,
    'current pread': `${current.query} SETTINGS local_filesystem_read_method = 'pread'`,
    'current mmap': `${current.query} SETTINGS local_filesystem_read_method = 'mmap', min_bytes_to_use_mmap_io = 1`,
    'no FINAL, versions and candidate texts in tuples': current.query
      .replace('FROM spans FINAL', 'FROM spans')
      .replace(/SELECT[\s\S]*?AS trace_output,/, 'SELECT ')
      .replace(', session_id, user_id, environment, platform)))', `, session_id, user_id, environment, platform, ingested_at, toUInt64(splitByChar('_', _part)[2]), _part_offset,
        if(notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), input, ''),
        if(notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), output, ''))))`),
    'hours as literal': current.query.replace(/\(SELECT hour FROM trace_hours[^)]*\)/, '(toDateTime({hour:UInt64}))'),
    'rows without FINAL, versions, candidate texts': `SELECT ${API_SPAN_SQL}, session_id, user_id, environment, platform, ingested_at, _part, _part_offset,
        if(notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), input, '') AS input,
        if(notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), output, '') AS output FROM spans ${where}`,
    'FINAL rows, light, with texts': `SELECT ${API_SPAN_SQL}, session_id, user_id, environment, platform, input, output FROM spans FINAL ${where}`,
    'flags alone': 'SELECT (SELECT groupArray((flags, details)) FROM trace_flags FINAL WHERE project_id = {projectId:String} AND trace_id = {traceId:String}) AS judged',
    'FINAL tuples, candidate texts, flags': current.query
      .replace(/SELECT[\s\S]*?AS trace_output,/, 'SELECT ')
      .replace(', session_id, user_id, environment, platform)))', `, session_id, user_id, environment, platform,
        if(notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), input, ''),
        if(notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm')), output, ''))))`),
    'flags alone, argMax without FINAL': `SELECT (SELECT if(count() = 0, [], [argMax((flags, details), (version, _part_offset))]) FROM trace_flags PREWHERE project_id = {projectId:String} AND trace_id = {traceId:String}) AS judged`,
    'flags alone, as a join-free second column': `SELECT groupArray((flags, details)) FROM trace_flags FINAL WHERE project_id = {projectId:String} AND trace_id = {traceId:String}`,
    'trace_hours alone': 'SELECT hour FROM trace_hours WHERE project_id = {projectId:String} AND trace_id = {traceId:String}',
    'SELECT 1': 'SELECT 1',
  };
  if (process.env.PROFILE_EXPLAIN) {
    const explained = await storage.client.query({ query: `EXPLAIN indexes = 1 ${variants[process.env.PROFILE_EXPLAIN]}`, query_params: current.params, format: 'TabSeparatedRaw' });
    console.log(await explained.text());
  }
  const only = process.env.PROFILE_ONLY ? new RegExp(process.env.PROFILE_ONLY) : null;
  const chosen = Object.entries(variants).filter(([name]) => !only || only.test(name));
  const samples = new Map(chosen.map(([name]) => [name, { wall: [] as number[], engine: [] as number[], cpu: [] as number[], stats: '' }]));
  // Merges of spans parts would otherwise run inside this process between the timed statements.
  await storage.client.command({ query: 'SYSTEM STOP MERGES spans' });
  const EVENTS = ['QueryAnalysisMicroseconds', 'QueryPlanOptimizeMicroseconds', 'QueryPipelineBuildMicroseconds', 'CompressedReadBufferBytes', 'UserTimeMicroseconds', 'FileOpen'];
  const events = async () => {
    const r = await storage.client.query({ query: `SELECT event, value FROM system.events WHERE event IN (${EVENTS.map((e) => `'${e}'`).join(', ')})`, format: 'JSONEachRow' });
    return new Map((await r.json<{ event: string; value: string }>()).map((e) => [e.event, Number(e.value)]));
  };
  const hourResult = await storage.client.query({ query: 'SELECT toUnixTimestamp(hour) AS h FROM trace_hours WHERE project_id = {projectId:String} AND trace_id = {traceId:String}', query_params: current.params, format: 'JSONEachRow' });
  const [{ h: hour }] = (await hourResult.json<{ h: number }>()) as [{ h: number }];
  const deltas = new Map<string, Map<string, number[]>>();
  const run = (query: string) => storage.client.query({ query, query_params: { ...current.params, hour }, format: 'JSON' }).then((r) => r.json<{ rows: number; statistics: { elapsed: number; rows_read: number; bytes_read: number } }>());
  for (const [, query] of chosen) await run(query);
  for (let i = 0; i < RUNS; i++) {
    for (const [name, query] of chosen) {
      const s = samples.get(name)!;
      const e0 = await events();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const answer = await run(query);
      const stats = answer.statistics;
      if (!stats) throw new Error(`${name}: the answer has no statistics`);
      s.wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      s.cpu.push((c.user + c.system) / 1000);
      s.engine.push(stats.elapsed * 1000);
      const e1 = await events();
      const d = deltas.get(name) ?? new Map<string, number[]>();
      deltas.set(name, d);
      for (const e of EVENTS) d.set(e, [...(d.get(e) ?? []), (e1.get(e) ?? 0) - (e0.get(e) ?? 0)]);
      s.stats = `rows ${answer.rows} | read_rows ${stats.rows_read} | read_bytes ${stats.bytes_read}`;
    }
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!.toFixed(1);
  console.log('statement | wall ms | engine ms | process CPU ms | answer');
  for (const [name, s] of samples) {
    const ev = [...deltas.get(name)!].map(([e, xs]) => `${e.replace('Microseconds', ' us')} ${mid(xs)}`).join(', ');
    console.log(`${name} | ${mid(s.wall)} | ${mid(s.engine)} | ${mid(s.cpu)} | ${s.stats} | ${ev}`);
  }
} finally {
  await service.stop();
}
