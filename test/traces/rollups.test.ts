import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSupersededRollups, exactRollupHours, loadMigrations, rollUpHours, rollupRuns } from '@aos/storage';
import { readJson, type Page, type TimeseriesBody, type TraceDetail, type TraceRecord, type TraceSummary } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// Traces in hours of two past days, rolled up as soon as their hours are quiet (TRACE_ROLLUP_QUIET_MS=0).
let svc: TestService;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const DAY_A = today - 3 * DAY;
const DAY_B = today - 2 * DAY;
const WINDOW = { startTimeMs: DAY_A, endTimeMs: Date.now() };
const QUERY = `startTime=${new Date(WINDOW.startTimeMs).toISOString()}&endTime=${new Date(WINDOW.endTimeMs).toISOString()}`;
const HOUR = 3_600_000;
const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;

interface Crafted {
  id: string;
  startMs: number;
  env: string;
  session?: string;
  error?: boolean;
}
const TRACES: Crafted[] = [
  { id: 'a1'.repeat(16), startMs: DAY_A + 12 * 3_600_000, env: 'prod', session: 's-1' },
  { id: 'a2'.repeat(16), startMs: DAY_A + 13 * 3_600_000, env: 'prod', session: 's-1', error: true },
  { id: 'a3'.repeat(16), startMs: DAY_A + 14 * 3_600_000, env: 'staging' },
  { id: 'b1'.repeat(16), startMs: DAY_B + 12 * 3_600_000, env: 'prod', session: 's-2' },
  { id: 'b2'.repeat(16), startMs: DAY_B + 15 * 3_600_000, env: 'staging', session: 's-2' },
];

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

function spansOf(t: Crafted) {
  const ns = (ms: number) => String(ms * 1_000_000);
  return [
    {
      traceId: t.id,
      spanId: '0000000000000001',
      name: 'agent run',
      startTimeUnixNano: ns(t.startMs),
      endTimeUnixNano: ns(t.startMs + 900),
      status: { code: t.error ? 2 : 1 },
      attributes: [
        str('deployment.environment.name', t.env),
        str('input.value', `question ${t.id.slice(0, 2)}`),
        str('output.value', `answer, "quoted"\nover two lines`),
        ...(t.session ? [str('session.id', t.session)] : []),
      ],
    },
    {
      traceId: t.id,
      spanId: '0000000000000002',
      parentSpanId: '0000000000000001',
      name: 'chat gpt-4o',
      startTimeUnixNano: ns(t.startMs + 100),
      endTimeUnixNano: ns(t.startMs + 600),
      attributes: [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt-4o'), int('gen_ai.usage.input_tokens', 1000), int('gen_ai.usage.output_tokens', 100)],
    },
  ];
}

/** A span arriving late for the first trace: a failed tool call. */
const LATE_SPAN = {
  traceId: TRACES[0]!.id,
  spanId: '0000000000000003',
  parentSpanId: '0000000000000001',
  name: 'tool search',
  startTimeUnixNano: String((TRACES[0]!.startMs + 700) * 1_000_000),
  endTimeUnixNano: String((TRACES[0]!.startMs + 800) * 1_000_000),
  status: { code: 2 },
};

async function send(spans: unknown[]) {
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }),
  });
  expect(res.status).toBe(200);
}

async function summary(extra = ''): Promise<TraceSummary> {
  const res = await svc.api(`/api/v1/traces/summary?${QUERY}${extra}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return readJson<TraceSummary>(res);
}

async function list(query: string): Promise<TraceRecord[]> {
  const res = await svc.api(`/api/v1/traces?${QUERY}&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<Page<TraceRecord>>(res)).data;
}

/** Every point's value of a timeseries, series after series. */
async function timeseries(query: string): Promise<Array<number | null>> {
  const res = await svc.api(`/api/v1/traces/timeseries?${QUERY}&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<TimeseriesBody>(res)).series.flatMap((s) => s.points.map((p) => p.value));
}

async function exported(format: string): Promise<string> {
  const res = await svc.api(`/api/v1/traces/export?format=${format}&${QUERY}`);
  expect(res.status).toBe(200);
  return res.text();
}

/** Rolled-up hour start (ms) -> the version read now. */
async function rolledUpVersions(): Promise<Map<number, number>> {
  const hours = await exactRollupHours(svc.service.storage, 'default', WINDOW);
  return new Map(hours.map((h) => [h.hourMs, h.version]));
}

async function spanRowsWritten(): Promise<number> {
  const result = await svc.service.storage.client.query({ query: 'SELECT sum(written) AS n FROM span_hour_writes', format: 'JSONEachRow' });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

beforeAll(async () => {
  svc = await startTestService({ TRACE_ROLLUP_QUIET_MS: '0', TRACE_ROLLUP_INTERVAL_MS: '200' });
});
afterAll(async () => {
  await svc?.stop();
});

describe('trace rollups', () => {
  it('give summaries equal to the spans’, and a write since an hour was rolled up counts at once', async () => {
    await send(TRACES.flatMap(spansOf));
    const live = await eventually(async () => {
      const s = await summary();
      return s.spanCount === TRACES.length * 2 ? s : undefined;
    });
    expect(live).toMatchObject({ traceCount: 5, errorCount: 1, sessionCount: 2, tokens: { input: 5000, output: 500 } });
    const liveProd = await summary('&environment=prod');
    const liveSession = await summary('&sessionId=s-2');
    const QUERY_FILTER = `&query=${encodeURIComponent('errors > 0 or session = "s-2"')}`;
    const liveQuery = await summary(QUERY_FILTER);
    const liveTextQuery = await summary(`&query=${encodeURIComponent('input contains "question a2" or errors > 0')}`);
    const liveExports = await Promise.all(['csv', 'jsonl'].map((format) => exported(format)));
    const LISTS = ['sortBy=duration&limit=2', 'sortBy=errors&sortOrder=asc&limit=10', 'sortBy=startTime&sortOrder=asc&limit=3&environment=prod'];
    const liveLists = await Promise.all(LISTS.map(list));
    const SERIES = ['measure=trace_count&interval=1h', 'measure=latency_p50&interval=1d&groupBy=environment', 'measure=error_rate&interval=1d&status=ok'];
    const liveSeries = await Promise.all(SERIES.map(timeseries));

    // Every trace's hour gets rolled up; the summaries read from the rollups say the same.
    const first = await eventually(async () => {
      const versions = await rolledUpVersions();
      return TRACES.every((t) => versions.has(hourOf(t.startMs))) ? versions : undefined;
    });
    expect(await summary()).toEqual(live);
    expect(await summary('&environment=prod')).toEqual(liveProd);
    expect(await summary('&sessionId=s-2')).toEqual(liveSession);
    expect(await summary(QUERY_FILTER)).toEqual(liveQuery);
    expect(liveQuery.traceCount).toBe(3);
    // Conditions on the root's text, and exports, read the root texts the rollups keep.
    expect(await summary(`&query=${encodeURIComponent('input contains "question a2" or errors > 0')}`)).toEqual(liveTextQuery);
    expect(await Promise.all(['csv', 'jsonl'].map((format) => exported(format)))).toEqual(liveExports);
    expect(liveExports[1]!.trim().split('\n')).toHaveLength(5);
    // Lists over the window, in any order, with the texts of their page; timeseries.
    expect(await Promise.all(LISTS.map(list))).toEqual(liveLists);
    expect(await Promise.all(SERIES.map(timeseries))).toEqual(liveSeries);
    expect(liveSeries[0]!.reduce<number>((n, v) => n + (v ?? 0), 0)).toBe(5);
    expect(liveLists[2]!.map((t) => t.traceId)).toEqual([TRACES[0]!.id, TRACES[1]!.id, TRACES[3]!.id]);
    expect(liveLists[2]![0]!.input).toBe('question a1');
    expect(liveExports[1]).toContain('"input":"question b1"');
    expect(liveTextQuery.traceCount).toBe(1);
    expect(liveProd.traceCount).toBe(3);
    expect(liveSession.traceCount).toBe(2);

    // The summary does read them: a row added to the first trace's hour shows up, in its
    // hour figures for a plain summary (they cover the hour whole), in its trace rollups for
    // a filtered one.
    const firstHour = hourOf(TRACES[0]!.startMs);
    const okBefore = (await summary('&status=ok')).traceCount;
    await svc.service.storage.client.insert({
      table: 'trace_rollups',
      values: [
        {
          project_id: 'default', hour: firstHour / 1000, version: first.get(firstHour), trace_id: 'ff'.repeat(16),
          trace_start: ((firstHour + 1800_000) / 1000).toFixed(3), trace_end: ((firstHour + 1800_005) / 1000).toFixed(3), span_count: 7, trace_status: 'ok',
        },
      ],
      format: 'JSONEachRow',
    });
    await svc.service.storage.client.insert({
      table: 'trace_hour_figures',
      values: [{ project_id: 'default', hour: firstHour / 1000, version: first.get(firstHour), hour_traces: 1, hour_spans: 7 }],
      format: 'JSONEachRow',
    });
    expect(await summary()).toMatchObject({ traceCount: 6, spanCount: 17 });
    expect((await summary('&status=ok')).traceCount).toBe(okBefore + 1);
    expect((await timeseries(SERIES[0]!)).reduce<number>((n, v) => n + (v ?? 0), 0)).toBe(6);

    // A late span for the first trace: its hour is read from spans again at once (the
    // added row is gone), with the span counted, and the trace now failed.
    await send([LATE_SPAN]);
    const late = await eventually(async () => {
      const s = await summary();
      return s.spanCount === 11 ? s : undefined;
    });
    expect(late).toMatchObject({ traceCount: 5, errorCount: 2 });

    // The same span again (an exporter retry): counted once, before and after the hour is rolled up again.
    const written = await spanRowsWritten();
    await send([LATE_SPAN]);
    await eventually(async () => ((await spanRowsWritten()) > written ? true : undefined));
    expect(await summary()).toEqual(late);
    await eventually(async () => {
      const versions = await rolledUpVersions();
      const version = versions.get(firstHour);
      return version !== undefined && version !== first.get(firstHour) ? true : undefined;
    });
    expect(await summary()).toEqual(late);
  });

  it('recomputes an hour after writes to it or to the hour either side, not others', async () => {
    const hourA1 = hourOf(TRACES[0]!.startMs); // 12:00 of day A
    const hourB1 = hourOf(TRACES[3]!.startMs); // 12:00 of day B
    const allRolled = async () => {
      const versions = await rolledUpVersions();
      return TRACES.every((t) => versions.has(hourOf(t.startMs))) ? versions : undefined;
    };
    const before = await eventually(allRolled);
    const newTrace = (id: string, startMs: number) => spansOf({ id, startMs, env: 'prod' });
    // A trace at 14:30 of day B: hours 13 to 15 are due, day A's and 12:00 of day B are not.
    await send(newTrace('c1'.repeat(16), hourB1 + 2.5 * HOUR));
    await eventually(async () => ((await allRolled())?.has(hourB1 + 2 * HOUR) ? true : undefined));
    // Passes run every 200 ms: after a few more, those hours have still not been recomputed.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterB = (await allRolled())!;
    expect([afterB.get(hourA1), afterB.get(hourB1)]).toEqual([before.get(hourA1), before.get(hourB1)]);
    // A trace at 13:30 of day A: the hour after the first trace's, where its spans may lie.
    await send(newTrace('c2'.repeat(16), hourA1 + 1.5 * HOUR));
    await eventually(async () => {
      const versions = await allRolled();
      return versions && versions.get(hourA1) !== before.get(hourA1) ? true : undefined;
    });
    expect((await allRolled())?.get(hourB1)).toBe(before.get(hourB1));
    expect((await summary()).traceCount).toBe(TRACES.length + 2);
  });

  it('gives the same rows when a busy hour is rolled up in parts by trace id', async () => {
    const before = await summary();
    const hourA1 = hourOf(TRACES[0]!.startMs);
    const result = await svc.service.storage.client.query({
      query: `SELECT toString(written_around) AS written, toString(version) AS version FROM trace_rollup_hours FINAL
              WHERE project_id = 'default' AND hour = toDateTime({hour:UInt32}, 'UTC')`,
      query_params: { hour: hourA1 / 1000 },
      format: 'JSONEachRow',
    });
    const [recorded] = await result.json<{ written: string; version: string }>();
    // One span per part: every trace of the hour lands in some part, none in two.
    const due = { projectId: 'default', hourMs: hourA1, writtenAround: Number(recorded!.written), writtenIn: 0, currentVersion: Number(recorded!.version) };
    await rollUpHours(svc.service.storage, [due], { spansPerPart: 1 });
    await dropSupersededRollups(svc.service.storage, [due]);
    const current = (await rolledUpVersions()).get(hourA1)!;
    expect(current).toBeGreaterThan(Number(recorded!.version));
    expect(await summary()).toEqual(before);
    // The hour's figures: of the versions kept (the previous one, still readable, and the new one).
    const figures = await svc.service.storage.client.query({
      query: `SELECT DISTINCT toString(version) AS version FROM trace_hour_figures WHERE project_id = 'default' AND hour = toDateTime({hour:UInt32}, 'UTC') ORDER BY version`,
      query_params: { hour: hourA1 / 1000 },
      format: 'JSONEachRow',
    });
    expect((await figures.json<{ version: string }>()).map((r) => Number(r.version))).toEqual([Number(recorded!.version), current]);
  });

  it('gives the same rows when consecutive hours are rolled up by one statement as hour by hour', async () => {
    const storage = svc.service.storage;
    // Day A's hours around its three traces (12:00 to 14:00), with their recorded counts.
    const hours = [11, 12, 13, 14, 15].map((h) => DAY_A + h * HOUR);
    const result = await storage.client.query({
      query: `SELECT toUInt32(hour) AS hour_s, toString(written_around) AS around, toString(version) AS version FROM trace_rollup_hours FINAL
              WHERE project_id = 'default' AND hour IN {hours:Array(DateTime)} ORDER BY hour`,
      query_params: { hours: hours.map((h) => h / 1000) },
      format: 'JSONEachRow',
    });
    const recorded = await result.json<{ hour_s: number; around: string; version: string }>();
    expect(recorded.map((r) => r.hour_s * 1000)).toEqual(hours);
    // writtenIn only sizes runs, against a budget far above these counts.
    const dueAt = (versions: readonly unknown[]) =>
      recorded.map((r, i) => ({ projectId: 'default', hourMs: r.hour_s * 1000, writtenAround: Number(r.around), writtenIn: 2, currentVersion: Number(versions[i]) }));
    const due = dueAt(recorded.map((r) => r.version));
    const rows = async () => {
      const versions = await rolledUpVersions();
      const read = await storage.client.query({
        query: `SELECT * EXCEPT version FROM trace_rollups
                WHERE project_id = 'default' AND (hour, version) IN (SELECT arrayJoin(arrayZip({hours:Array(DateTime)}, {versions:Array(UInt64)})))
                ORDER BY trace_id`,
        query_params: { hours: hours.map((h) => h / 1000), versions: hours.map((h) => versions.get(h) ?? 0) },
        format: 'JSONEachRow',
      });
      return { versions: hours.map((h) => versions.get(h)), rows: await read.json<Record<string, unknown>>() };
    };
    for (const hour of due) await rollUpHours(storage, [hour]);
    await dropSupersededRollups(storage, due);
    const oneByOne = await rows();
    expect(oneByOne.rows.length).toBe(4); // three traces of day A and the late one at 13:30
    const dueAgain = dueAt(oneByOne.versions);
    const runs = rollupRuns(dueAgain);
    expect(runs).toEqual([dueAgain]);
    await rollUpHours(storage, runs[0]!);
    await dropSupersededRollups(storage, dueAgain);
    const together = await rows();
    // A version of its own for each hour, newer than every one before.
    expect(new Set(together.versions).size).toBe(hours.length);
    expect(Math.min(...together.versions.map(Number))).toBeGreaterThan(Math.max(...oneByOne.versions.map(Number)));
    expect(together.rows).toEqual(oneByOne.rows);
  });

  it('keeps at most the current and the previous computation of an hour', async () => {
    const result = await svc.service.storage.client.query({
      query: `SELECT uniqExact(version) AS versions FROM trace_rollups WHERE project_id = 'default' AND hour = toDateTime({hour:UInt32}, 'UTC')`,
      query_params: { hour: hourOf(TRACES[0]!.startMs) / 1000 },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ versions: string }>();
    expect(Number(row?.versions)).toBeGreaterThan(0);
    expect(Number(row?.versions)).toBeLessThanOrEqual(2);
  });

  it("keeps a trace's texts from its agent when its root has none, and its models one per model, as the trace itself reads", async () => {
    const hour = DAY_B + 18 * HOUR;
    const id = 'd5'.repeat(16);
    const ns = (ms: number) => String((hour + 60_000 + ms) * 1_000_000);
    const span = (n: number, name: string, fromMs: number, toMs: number, attributes: unknown[]) => ({
      traceId: id,
      spanId: n.toString(16).padStart(16, '0'),
      ...(n > 1 ? { parentSpanId: '0000000000000001' } : {}),
      name,
      startTimeUnixNano: ns(fromMs),
      endTimeUnixNano: ns(toMs),
      attributes,
    });
    await send([
      span(1, 'POST /chat', 0, 1000, [str('http.request.method', 'POST')]),
      span(2, 'support agent', 10, 900, [str('openinference.span.kind', 'AGENT'), str('input.value', 'where is order 42?'), str('output.value', 'order 42 ships tomorrow')]),
      span(3, 'chat', 20, 300, [str('openinference.span.kind', 'LLM'), str('llm.model_name', 'gpt-4o'), str('output.value', 'draft')]),
      span(4, 'chat', 30, 400, [str('openinference.span.kind', 'LLM'), str('llm.model_name', 'gpt-4o-2024-08-06')]),
    ]);
    await eventually(async () => ((await rolledUpVersions()).has(hour) ? true : undefined));
    const detail = await readJson<TraceDetail>(await svc.api(`/api/v1/traces/${id}`));
    expect([detail.input, detail.output, detail.models]).toEqual(['where is order 42?', 'order 42 ships tomorrow', ['gpt-4o-2024-08-06']]);
    // The rollup row itself, then what reads it: exports, conditions on the texts, groups by model.
    const stored = await svc.service.storage.client.query({
      query: `SELECT trace_input, trace_output, trace_models FROM trace_rollups WHERE project_id = 'default' AND trace_id = {id:String} AND version = {version:UInt64}`,
      query_params: { id, version: (await rolledUpVersions()).get(hour) },
      format: 'JSONEachRow',
    });
    expect(await stored.json()).toEqual([{ trace_input: detail.input, trace_output: detail.output, trace_models: detail.models }]);
    const window = `startTime=${new Date(hour).toISOString()}&endTime=${new Date(hour + HOUR).toISOString()}`;
    const line = (await (await svc.api(`/api/v1/traces/export?format=jsonl&${window}`)).text()).trim();
    expect(JSON.parse(line)).toMatchObject({ traceId: id, input: detail.input, output: detail.output, models: detail.models });
    const matching = async (query: string) =>
      (await readJson<TraceSummary>(await svc.api(`/api/v1/traces/summary?${window}&query=${encodeURIComponent(query)}`))).traceCount;
    expect(await Promise.all(['input contains "order 42"', 'output contains "ships"', 'model = "gpt-4o"', 'model = "gpt-4o-2024-08-06"'].map(matching))).toEqual([1, 1, 0, 1]);
    const series = await readJson<TimeseriesBody>(await svc.api(`/api/v1/traces/timeseries?${window}&measure=trace_count&interval=1h&groupBy=model`));
    expect(series.series.map((s) => s.group)).toEqual(['gpt-4o-2024-08-06']);
  });

  it('rolls every hour up again after the upgrade that forgets them (migration 0014), to the same answers', async () => {
    const hours = [...new Set(TRACES.map((t) => hourOf(t.startMs)))];
    const allRolled = async () => {
      const versions = await rolledUpVersions();
      return hours.every((h) => versions.has(h)) ? versions : undefined;
    };
    const before = await eventually(allRolled);
    const answers = async () => Promise.all([summary(), exported('jsonl'), exported('csv')]);
    const expected = await answers();
    const [upgrade] = loadMigrations('single').filter((m) => m.name.startsWith('0014_'));
    for (const statement of upgrade!.statements) await svc.service.storage.client.command({ query: statement });
    await eventually(async () => {
      const versions = await allRolled();
      return versions && hours.every((h) => versions.get(h) !== before.get(h)) ? true : undefined;
    });
    expect(await answers()).toEqual(expected);
  });

  it('exports a rolled-up hour in start order, though its ids sort the other way', async () => {
    // Ids in the reverse of their start order: rollups are stored by start within an hour.
    const hour = DAY_A + 20 * HOUR;
    const ids = ['e3', 'e2', 'e1'].map((p) => p.repeat(16));
    await send(ids.flatMap((id, i) => spansOf({ id, startMs: hour + (i + 1) * 60_000, env: 'prod' })));
    await eventually(async () => ((await rolledUpVersions()).has(hour) ? true : undefined));
    const window = `startTime=${new Date(hour).toISOString()}&endTime=${new Date(hour + 3 * HOUR).toISOString()}`;
    const res = await svc.api(`/api/v1/traces/export?format=jsonl&${window}`);
    expect(res.status).toBe(200);
    const exportedIds = (await res.text()).trim().split('\n').map((line) => (JSON.parse(line) as { traceId: string }).traceId);
    expect(exportedIds).toEqual(ids);
  });
});
