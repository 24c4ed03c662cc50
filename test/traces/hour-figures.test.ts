import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { exactRollupHours, migrate, type RolledUpHour, type TraceFilter } from '@aos/storage';
import { measureByName, MEASURE_NAMES, type MeasureName } from '@aos/storage';
import { traceSummarySql } from '../../packages/storage/src/traces/summary.ts';
import { hourlyTimeseriesSql } from '../../packages/storage/src/traces/timeseries-hourly.ts';
import { measureSourceSql, timeseriesSql } from '../../packages/storage/src/traces/timeseries.ts';
import type { Statement } from '../../packages/storage/src/sql/statement.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// A summary without trace conditions, and an ungrouped timeseries of whole-hour buckets,
// read the rolled-up hours the window covers whole from trace_hour_figures; these tests hold
// them to the per-trace reading and to the spans alone,
// on the same data: sessions, users, quantiles, masked rules, flags judged after the rollup,
// windows that cut hours, and live hours read from spans.
let svc: TestService;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 10:00 two days ago: six busy hours follow. */
const BASE = Math.floor(Date.now() / DAY) * DAY - 2 * DAY + 10 * HOUR;
const PROJECT = 'default';

interface Crafted {
  id: string;
  startMs: number;
  durationMs: number;
  session?: string;
  user?: string;
  error?: boolean;
  /** An e-mail address in the input, which the masking policy replaces. */
  email?: boolean;
}

/** 48 traces over six past hours, and 3 in the last half hour (read from spans). */
const TRACES: Crafted[] = [
  ...Array.from({ length: 48 }, (_, i) => ({
    id: (0x1000 + i).toString(16).padStart(32, '0'),
    startMs: BASE + Math.floor(i / 8) * HOUR + (i % 8) * 7 * 60_000 + 1_000,
    durationMs: 100 + ((i * 37) % 900),
    ...(i % 3 === 0 ? {} : { session: `s-${i % 5}` }),
    ...(i % 4 === 0 ? {} : { user: `u-${i % 7}` }),
    error: i % 6 === 0,
    email: i % 5 === 0,
  })),
  ...[1, 2, 3].map((i) => ({ id: (0x2000 + i).toString(16).padStart(32, '0'), startMs: Date.now() - i * 5 * 60_000, durationMs: 50 * i, session: `s-${i}` })),
];

/** One OTLP/JSON span of the trace: the root (span 1) or a child of it. */
function span(t: Crafted, spanNo: number, name: string, fromMs: number, toMs: number, attributes: Record<string, string | number>) {
  const id = (n: number) => String(n).padStart(16, '0');
  return {
    traceId: t.id,
    spanId: id(spanNo),
    ...(spanNo > 1 ? { parentSpanId: id(1) } : { status: { code: t.error ? 2 : 1 } }),
    name,
    startTimeUnixNano: String(fromMs * 1_000_000),
    endTimeUnixNano: String(toMs * 1_000_000),
    attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } })),
  };
}

/** The root (its session, user and input) and one model call. */
function spansOf(t: Crafted) {
  const root = {
    'input.value': t.email ? 'write to jane.doe@example.com' : 'hello',
    ...(t.session ? { 'session.id': t.session } : {}),
    ...(t.user ? { 'user.id': t.user } : {}),
  };
  const call = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 100 + t.durationMs };
  return [span(t, 1, 'agent run', t.startMs, t.startMs + t.durationMs, root), span(t, 2, 'chat gpt-4o', t.startMs + 10, t.startMs + 20, call)];
}

/** The summary row of the statement, cost rounded as the API rounds it (sums in another order differ in the last bits). */
async function summaryRow(filter: TraceFilter, rollups: readonly RolledUpHour[], opts: { hourFigures?: boolean } = {}): Promise<Record<string, unknown>> {
  const statement = traceSummarySql(filter, rollups, opts);
  const result = await svc.service.storage.client.query({ query: statement.query, query_params: statement.params, format: 'JSONEachRow' });
  const [row] = await result.json<Record<string, unknown>>();
  return { ...row!, summary_cost: Number((row!.summary_cost as number).toFixed(10)), readsHourFigures: statement.query.includes('trace_hour_figures') };
}

beforeAll(async () => {
  svc = await startTestService({ TRACE_ROLLUP_QUIET_MS: '0', TRACE_ROLLUP_INTERVAL_MS: '200' });
  const policy = await svc.api('/api/v1/trace-masking', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules: [{ name: 'emails', detector: 'email' }] }),
  });
  expect(policy.status).toBe(200);
  // The policy reaches ingest through the project settings: a probe trace days before the
  // windows is sent until it comes out masked, then the traces once.
  const send = async (traces: Crafted[]) => {
    const res = await svc.api('/api/v1/traces/otlp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: traces.flatMap(spansOf) }] }] }),
    });
    expect(res.status).toBe(200);
  };
  const maskedSpans = async () => {
    const r = await svc.service.storage.client.query({ query: 'SELECT count() AS n FROM spans WHERE notEmpty(masked_rules)', format: 'JSONEachRow' });
    return Number((await r.json<{ n: string }>())[0]!.n);
  };
  let probe = 0;
  await eventually(async () => {
    if ((await maskedSpans()) > 0) return true;
    await send([{ id: (0x3000 + probe++).toString(16).padStart(32, '0'), startMs: BASE - 3 * DAY, durationMs: 10, email: true }]);
    return undefined;
  }, 30_000, 'the masking policy applied at ingest');
  await send(TRACES);
  const written = async () => {
    const r = await svc.service.storage.client.query({ query: `SELECT count() AS n FROM spans WHERE start_time >= {from:DateTime64(3)}`, query_params: { from: (BASE - HOUR) / 1000 }, format: 'JSONEachRow' });
    return Number((await r.json<{ n: string }>())[0]!.n);
  };
  await eventually(async () => ((await written()) === TRACES.length * 2 ? true : undefined), 30_000, 'the traces stored');
  // Every busy hour rolled up (their hour figures with them).
  await eventually(async () => {
    const hours = await exactRollupHours(svc.service.storage, PROJECT, { startTimeMs: BASE, endTimeMs: BASE + 6 * HOUR });
    return hours.length === 6 ? true : undefined;
  }, 30_000, 'six hours rolled up');
  // Flags judged after the rollup: a newer version than any the writer's flags pass writes.
  const flagged: Array<[string, string[]]> = [
    [TRACES[1]!.id, ['loop']],
    [TRACES[9]!.id, ['loop', 'cost_outlier']],
    [TRACES[20]!.id, ['empty_output']],
    [TRACES[30]!.id, []],
    [TRACES[49]!.id, ['duplicate_tools']],
  ];
  await svc.service.storage.client.insert({
    table: 'trace_flags',
    values: flagged.map(([trace_id, flags]) => {
      // The hour of the trace's start, as the writer's flags pass keeps it (whole hours' flags are counted by it).
      const start_hour = Math.floor(TRACES.find((t) => t.id === trace_id)!.startMs / HOUR) * (HOUR / 1000);
      return { project_id: PROJECT, trace_id, start_hour, flags, details: '{}', spans_ingested_at: 0, computed_at: Date.now(), version: 2 ** 53 - 1 };
    }),
    format: 'JSONEachRow',
  });
}, 90_000);
afterAll(async () => {
  await svc?.stop();
});

const WINDOWS: Array<[string, TraceFilter]> = [
    ['whole hours', { projectId: PROJECT, startTimeMs: BASE, endTimeMs: BASE + 6 * HOUR }],
    ['hours cut at both ends', { projectId: PROJECT, startTimeMs: BASE + 20 * 60_000, endTimeMs: BASE + 4 * HOUR + 30 * 60_000 }],
    ['past and live hours', { projectId: PROJECT, startTimeMs: BASE - HOUR, endTimeMs: Date.now() + 60_000 }],
];

describe('trace summaries over hour figures', () => {
  for (const [name, filter] of WINDOWS) {
    it(`give what the per-trace reading and the spans give: ${name}`, async () => {
      const rollups = await exactRollupHours(svc.service.storage, PROJECT, filter);
      const fast = await summaryRow(filter, rollups);
      const perTrace = await summaryRow(filter, rollups, { hourFigures: false });
      const fromSpans = await summaryRow(filter, []);
      expect(fast.readsHourFigures).toBe(true);
      expect(perTrace.readsHourFigures).toBe(false);
      expect({ ...fast, readsHourFigures: null }).toEqual({ ...perTrace, readsHourFigures: null });
      expect({ ...fast, readsHourFigures: null }).toEqual({ ...fromSpans, readsHourFigures: null });
      // The data reaches every figure: a figure nobody fills would agree at zero.
      expect(Number(fast.summary_traces)).toBeGreaterThan(20);
      expect(Number(fast.summary_sessions)).toBeGreaterThan(1);
      expect(Number(fast.summary_users)).toBeGreaterThan(1);
      expect(Number(fast.summary_masked_spans)).toBeGreaterThan(0);
      expect(Number(fast.summary_flagged_traces)).toBeGreaterThan(0);
    });
  }

  it('count the traces of the whole window, live hours and flags after the rollup included', async () => {
    const filter: TraceFilter = { projectId: PROJECT, startTimeMs: BASE - HOUR, endTimeMs: Date.now() + 60_000 };
    const row = await summaryRow(filter, await exactRollupHours(svc.service.storage, PROJECT, filter));
    expect(Number(row.summary_traces)).toBe(TRACES.length);
    expect(Number(row.summary_spans)).toBe(TRACES.length * 2);
    expect(Number(row.summary_error_traces)).toBe(TRACES.filter((t) => t.error).length);
    expect(Number(row.summary_sessions)).toBe(new Set(TRACES.flatMap((t) => (t.session ? [t.session] : []))).size);
    expect(Number(row.summary_users)).toBe(new Set(TRACES.flatMap((t) => (t.user ? [t.user] : []))).size);
    expect(row.summary_masked_rules).toEqual({ emails: String(TRACES.filter((t) => t.email).length) });
    expect([row.summary_flagged_traces, row.summary_flag_loop, row.summary_flag_cost_outlier, row.summary_flag_empty_output, row.summary_flag_duplicate_tools]).toEqual(['4', '2', '1', '1', '1']);
    // Durations of ≤ 8192 traces: exact quantiles, as the per-trace reading gives them.
    const durations = TRACES.map((t) => t.durationMs).sort((a, b) => a - b);
    expect((row.summary_duration_quantiles as number[])[0]).toBeCloseTo(durations[25]!, 6);
  });
});

/** The statement's rows, values as numbers with cost's float noise rounded off (sums in another order differ in the last bits). */
async function seriesRows(statement: Statement) {
  const result = await svc.service.storage.client.query({ query: statement.query, query_params: statement.params, format: 'JSONEachRow' });
  const rows = await result.json<{ bucket: number; grp: string; value: number | string | null }>();
  return rows.map((r) => ({ ...r, value: r.value === null ? null : Number(Number(r.value).toFixed(10)) }));
}

describe('timeseries over hour figures', () => {
  for (const [name, filter] of WINDOWS) {
    it(`give what the per-trace reading gives, every measure they serve, hours to days: ${name}`, async () => {
      const rollups = await exactRollupHours(svc.service.storage, PROJECT, filter);
      let served = 0;
      for (const measure of MEASURE_NAMES as MeasureName[]) {
        for (const stepSeconds of [3600, 7200, 86_400]) {
          const hourly = hourlyTimeseriesSql(filter, measure, stepSeconds, rollups);
          if (!hourly) continue;
          served++;
          const perTrace = timeseriesSql(measureSourceSql(filter, measureByName(measure), rollups), { measure, stepSeconds }, null);
          const fast = await seriesRows(hourly);
          expect(fast, `${measure} every ${stepSeconds} s`).toEqual(await seriesRows(perTrace));
          expect(fast.length, `${measure} every ${stepSeconds} s`).toBeGreaterThan(0);
        }
      }
      // Every measure but the mean cost, the flag rate and the mean score.
      expect(served).toBe((MEASURE_NAMES.length - 3) * 3);
    });
  }

  it('are not read for buckets that cut hours, nor for a filter with trace conditions', () => {
    const [, filter] = WINDOWS[0]!;
    const rollups = [{ hourMs: BASE, version: 1 }];
    expect(hourlyTimeseriesSql(filter, 'trace_count', 3600, rollups)).not.toBeNull();
    expect(hourlyTimeseriesSql(filter, 'trace_count', 1800, rollups)).toBeNull();
    expect(hourlyTimeseriesSql({ ...filter, environment: 'prod' }, 'trace_count', 3600, rollups)).toBeNull();
    expect(hourlyTimeseriesSql(filter, 'flag_rate', 3600, rollups)).toBeNull();
  });
});

describe('hour figures written before migration 0024', () => {
  const storage = () => svc.service.storage;
  const figureRows = async () => {
    const result = await storage().client.query({ query: 'SELECT count() AS n FROM trace_hour_figures', format: 'JSONEachRow' });
    return Number((await result.json<{ n: string }>())[0]!.n);
  };
  /** 0024 run again as on storage where it was never applied. */
  const migrateAgain = async () => {
    await storage().client.command({ query: "DELETE FROM schema_migrations WHERE name = '0024_trace_hour_figure_hashes.sql'" });
    expect(await migrate(storage())).toEqual(['0024_trace_hour_figure_hashes.sql']);
  };

  it('get their sessions and users from their trace rollups (the backfill), and a second run adds nothing', async () => {
    const filter: TraceFilter = { projectId: PROJECT, startTimeMs: BASE - HOUR, endTimeMs: Date.now() + 60_000 };
    const rollups = await exactRollupHours(storage(), PROJECT, filter);
    // The figures as 0021 and the rollup pass wrote them before 0024: no hash columns.
    await storage().client.command({ query: 'ALTER TABLE trace_hour_figures DROP COLUMN hour_session_hashes, DROP COLUMN hour_user_hashes SETTINGS mutations_sync = 2' });
    // Rows are counted: a merge would fold a computation's rows into one meanwhile
    // (after the drop: a mutation waits for merges to run).
    await storage().client.command({ query: 'SYSTEM STOP MERGES trace_hour_figures' });
    onTestFinished(async () => {
      await storage().client.command({ query: 'SYSTEM START MERGES trace_hour_figures' });
    });
    const before = await figureRows();
    await migrateAgain();
    // One more row per stored computation with a session or a user.
    const withIds = await storage().client.query({
      query: "SELECT uniqExact(project_id, hour, version) AS n FROM trace_rollups WHERE trace_session_id != '' OR trace_user_id != ''",
      format: 'JSONEachRow',
    });
    const added = Number((await withIds.json<{ n: string }>())[0]!.n);
    expect(added).toBeGreaterThanOrEqual(6);
    expect(await figureRows()).toBe(before + added);
    const fast = await summaryRow(filter, rollups);
    expect(fast.readsHourFigures).toBe(true);
    expect({ ...fast, readsHourFigures: null }).toEqual({ ...(await summaryRow(filter, rollups, { hourFigures: false })), readsHourFigures: null });
    expect(Number(fast.summary_sessions)).toBe(new Set(TRACES.flatMap((t) => (t.session ? [t.session] : []))).size);
    expect(Number(fast.summary_users)).toBe(new Set(TRACES.flatMap((t) => (t.user ? [t.user] : []))).size);
    await migrateAgain();
    expect(await figureRows()).toBe(before + added);
    expect(await summaryRow(filter, rollups)).toEqual(fast);
  });
});
