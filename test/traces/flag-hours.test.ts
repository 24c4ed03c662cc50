import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactRollupHours, loadMigrations, loadTraceSteps, writeTraceFlags, type TraceFilter } from '@aos/storage';
import type { TraceFlag } from '@aos/domain';
import { traceSummarySql } from '../../packages/storage/src/traces/summary.ts';
import { insertTraceSpans } from '../support/trace-spans.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// A summary counts the flags of the rolled-up hours its window covers whole by the hour of
// the trace's start kept with its flags (migration 0023), and joins the other traces' ids.
// These tests hold it to the join over every trace id (flagHours: false) and to the spans
// alone: flagged traces in whole, cut and live hours, one crossing an hour, unflagged and
// re-flagged ones, rows written before the migration, and a trace whose start moved.
let svc: TestService;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIN = 60_000;
/** 10:00 two days ago: four busy hours follow. */
const BASE = Math.floor(Date.now() / DAY) * DAY - 2 * DAY + 10 * HOUR;
const PROJECT = 'default';
const hex = (n: number) => n.toString(16).padStart(32, '0');

/** Three traces in each of four past hours, at 5, 20 and 40 minutes past, two spans each. */
const HOURLY = Array.from({ length: 12 }, (_, i) => ({ id: hex(0x100 + i), startMs: BASE + Math.floor(i / 3) * HOUR + [5, 20, 40][i % 3]! * MIN }));
const CROSSING = { id: hex(0x200), startMs: BASE + HOUR + 55 * MIN };
const LIVE = [1, 2].map((i) => ({ id: hex(0x300 + i), startMs: Date.now() - i * 5 * MIN }));
const [w0, w1, w2, w3, w4, , w6, w7, , w9, w10] = HOURLY.map((t) => t.id);

/** The flags each trace carries in the end (traces absent carry none). */
const FINAL_FLAGS: Record<string, TraceFlag[]> = {
  [w0!]: ['loop'],
  [w3!]: ['loop', 'cost_outlier'],
  [CROSSING.id]: ['empty_output'],
  [w6!]: ['duplicate_tools'],
  [w9!]: ['loop'],
  [LIVE[0]!.id]: ['empty_output'],
  [LIVE[1]!.id]: ['loop'],
  [w4!]: ['empty_output'],
  [w2!]: ['duplicate_tools'],
  [w10!]: ['cost_outlier', 'loop'],
};

/** Flags written as the writer's flags pass writes them: the hour from the spans it reads. */
async function judge(flags: Record<string, TraceFlag[]>, hourShiftMs = 0): Promise<void> {
  const steps = await loadTraceSteps(svc.service.storage, PROJECT, Object.keys(flags));
  expect(steps.length).toBe(Object.keys(flags).length);
  await writeTraceFlags(
    svc.service.storage,
    steps.map((t) => ({
      projectId: PROJECT, traceId: t.traceId, flags: flags[t.traceId]!, details: {},
      spansIngestedAt: t.spansIngestedAt, spansLandedAt: Date.now(), startHourMs: t.startHourMs + hourShiftMs, computedAtMs: Date.now(),
    })),
  );
}

async function query<T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await svc.service.storage.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}

/** The flag columns of the summary statement, and whether it counted flags by hour. */
async function flagCounts(filter: TraceFilter, opts: { rolledUp?: boolean; flagHours?: boolean } = {}) {
  const rollups = opts.rolledUp === false ? [] : await exactRollupHours(svc.service.storage, PROJECT, filter);
  const statement = traceSummarySql(filter, rollups, { flagHours: opts.flagHours });
  const [row] = await query<Record<string, unknown>>(statement.query, statement.params);
  const counts = Object.fromEntries(Object.entries(row!).filter(([k]) => k === 'summary_flagged_traces' || k.startsWith('summary_flag_')));
  return { counts, byHour: statement.query.includes('start_hour IN {wholeHours'), traces: Number(row!.summary_traces) };
}

/** Traces of the window by their starts, and the flag counts FINAL_FLAGS gives them. */
function expectedCounts(filter: TraceFilter) {
  const inWindow = [...HOURLY, CROSSING, ...LIVE].filter((t) => t.startMs >= filter.startTimeMs && t.startMs < filter.endTimeMs);
  const flags = inWindow.map((t) => FINAL_FLAGS[t.id] ?? []).filter((f) => f.length > 0);
  const count = (flag: TraceFlag) => String(flags.filter((f) => f.includes(flag)).length);
  return {
    summary_flagged_traces: String(flags.length),
    summary_flag_loop: count('loop'),
    summary_flag_cost_outlier: count('cost_outlier'),
    summary_flag_empty_output: count('empty_output'),
    summary_flag_duplicate_tools: count('duplicate_tools'),
  };
}

const allRolledUp = () => eventually(async () => ((await exactRollupHours(svc.service.storage, PROJECT, { startTimeMs: BASE, endTimeMs: BASE + 4 * HOUR })).length === 4 ? true : undefined), 30_000, 'four hours rolled up');

beforeAll(async () => {
  // The writer's own flags pass stays out: the tests write the flags they count.
  svc = await startTestService({ TRACE_ROLLUP_QUIET_MS: '0', TRACE_ROLLUP_INTERVAL_MS: '200', TRACE_FLAGS_INTERVAL_MS: String(DAY) });
  const storage = svc.service.storage;
  for (const t of [...HOURLY, ...LIVE]) await insertTraceSpans(storage, PROJECT, t.id, [t.startMs, t.startMs + MIN]);
  await insertTraceSpans(storage, PROJECT, CROSSING.id, [CROSSING.startMs, CROSSING.startMs + 10 * MIN]);
  await allRolledUp();
  // Judged once, then again with other flags (a newer version), some unflagged.
  await judge({ [w0!]: ['loop'], [w1!]: [], [w3!]: ['loop', 'cost_outlier'], [CROSSING.id]: ['empty_output'], [w4!]: ['loop'], [w7!]: ['loop'] });
  await judge({ [w6!]: ['duplicate_tools'], [w9!]: ['loop'], [LIVE[0]!.id]: ['empty_output'], [LIVE[1]!.id]: ['loop'], [w4!]: ['empty_output'], [w7!]: [] });
  // Rows written before migration 0023 (no hour), then its backfill.
  await storage.client.insert({
    table: 'trace_flags',
    values: [[w2!, ['duplicate_tools']], [w10!, ['cost_outlier', 'loop']]].map(([trace_id, flags]) => ({
      project_id: PROJECT, trace_id, flags, details: '{}', spans_ingested_at: 0, computed_at: Date.now(), version: 1,
    })),
    format: 'JSONEachRow',
  });
  const backfill = loadMigrations('single').find((m) => m.name.startsWith('0023_'))!.statements.find((s) => s.startsWith('INSERT'))!;
  await storage.client.command({ query: backfill });
}, 90_000);
afterAll(async () => {
  await svc?.stop();
});

const WINDOWS: Array<[string, TraceFilter]> = [
  ['four whole hours', { projectId: PROJECT, startTimeMs: BASE, endTimeMs: BASE + 4 * HOUR }],
  ['hours cut at both ends', { projectId: PROJECT, startTimeMs: BASE + 10 * MIN, endTimeMs: BASE + 3 * HOUR + 30 * MIN }],
  ['past and live hours', { projectId: PROJECT, startTimeMs: BASE - HOUR, endTimeMs: Date.now() + MIN }],
  ['the crossing trace\'s hour alone', { projectId: PROJECT, startTimeMs: BASE + HOUR, endTimeMs: BASE + 2 * HOUR }],
  ['the hour it crosses into alone', { projectId: PROJECT, startTimeMs: BASE + 2 * HOUR, endTimeMs: BASE + 3 * HOUR }],
  ['two whole hours and half of one', { projectId: PROJECT, startTimeMs: BASE, endTimeMs: BASE + 2 * HOUR + 30 * MIN }],
];

describe('flag counts of whole rolled-up hours by the hour kept with the flags', () => {
  it('fill the hour of rows written before the migration, from the trace starts', async () => {
    const rows = await query<{ trace_id: string; h: string }>(
      'SELECT trace_id, toUnixTimestamp(start_hour) * 1000 AS h FROM trace_flags FINAL WHERE trace_id IN {ids:Array(String)} ORDER BY trace_id',
      { ids: [w2, w10] },
    );
    expect(rows.map((r) => Number(r.h))).toEqual([BASE, BASE + 3 * HOUR]);
    const [unknown] = await query<{ n: string }>('SELECT count() AS n FROM trace_flags FINAL WHERE start_hour = 0');
    expect(unknown!.n).toBe('0');
  });

  for (const [name, filter] of WINDOWS) {
    it(`give what the join of every trace id and the spans give: ${name}`, async () => {
      const fast = await flagCounts(filter);
      expect(fast.byHour).toBe(true);
      expect(fast.counts).toEqual(expectedCounts(filter));
      expect(fast.counts).toEqual((await flagCounts(filter, { flagHours: false })).counts);
      expect(fast.counts).toEqual((await flagCounts(filter, { rolledUp: false })).counts);
    });
  }

  it('count a trace by a wrong hour wrongly (the join does not), and right once the hour is right', async () => {
    const h1: TraceFilter = { projectId: PROJECT, startTimeMs: BASE + HOUR, endTimeMs: BASE + 2 * HOUR };
    const h0: TraceFilter = { projectId: PROJECT, startTimeMs: BASE, endTimeMs: BASE + HOUR };
    await judge({ [w3!]: FINAL_FLAGS[w3!]! }, -HOUR);
    expect((await flagCounts(h1)).counts).not.toEqual(expectedCounts(h1));
    expect((await flagCounts(h0)).counts).not.toEqual(expectedCounts(h0));
    expect((await flagCounts(h1, { flagHours: false })).counts).toEqual(expectedCounts(h1));
    await judge({ [w3!]: FINAL_FLAGS[w3!]! });
    expect((await flagCounts(h1)).counts).toEqual(expectedCounts(h1));
    expect((await flagCounts(h0)).counts).toEqual(expectedCounts(h0));
  });

  it('count a trace whose start moved to an earlier hour once, by its old hour until it is judged again', async () => {
    // A late span of w6 (started in the third hour) an hour earlier, in the second.
    await insertTraceSpans(svc.service.storage, PROJECT, w6!, [BASE + HOUR + 50 * MIN], 3);
    await eventually(async () => {
      const [row] = await query<{ h: string }>(
        `SELECT toUnixTimestamp(hour) * 1000 AS h FROM trace_rollups WHERE trace_id = {id:String} ORDER BY version DESC LIMIT 1`,
        { id: w6 },
      );
      return Number(row?.h) === BASE + HOUR && (await exactRollupHours(svc.service.storage, PROJECT, { startTimeMs: BASE, endTimeMs: BASE + 4 * HOUR })).length === 4 ? true : undefined;
    }, 30_000, 'the moved trace rolled up under its new hour');
    const both: TraceFilter = { projectId: PROJECT, startTimeMs: BASE + HOUR, endTimeMs: BASE + 3 * HOUR };
    const before = await flagCounts(both);
    expect(before.byHour).toBe(true);
    expect(before.counts).toEqual((await flagCounts(both, { flagHours: false })).counts);
    expect(before.counts.summary_flag_duplicate_tools).toBe('1');
    // Judged again: counted in its new hour by hour, by the join and from spans alike.
    await judge({ [w6!]: FINAL_FLAGS[w6!]! });
    const second: TraceFilter = { projectId: PROJECT, startTimeMs: BASE + HOUR, endTimeMs: BASE + 2 * HOUR };
    const after = await flagCounts(second);
    expect(after.counts.summary_flag_duplicate_tools).toBe('1');
    expect(after.counts).toEqual((await flagCounts(second, { flagHours: false })).counts);
    expect(after.counts).toEqual((await flagCounts(second, { rolledUp: false })).counts);
  });
});
