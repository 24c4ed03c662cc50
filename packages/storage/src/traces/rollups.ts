import type { Storage } from '../client/client.ts';
import { nextRowVersions } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { TRACE_ROLLUP_COLUMNS, TRACE_ROLLUP_SQL, TRACE_TEXT_COLUMNS, TRACE_TEXT_SQL } from './aggregate.ts';
import { TRACE_SPAN_MARGIN_MS } from './filter.ts';
import { recordHourFigures } from './hour-figures.ts';

/**
 * Trace rollups: one row per trace of a past hour, so that summaries, lists and exports
 * over days read a row per trace instead of aggregating every span at query time.
 *
 * They are used only while exact. The engine counts the span rows written to each hour
 * (span_hour_writes, a materialized view over inserts: replays and duplicates count too,
 * so the count only grows). An hour is rolled up from its spans once it and its
 * neighbours have been quiet for a while, and the computation records the count it saw.
 * A reader uses an hour's rollups only while that count is unchanged: any write since
 * (a late span, a replayed batch) sends the hour back to its spans until it is recomputed.
 *
 * An hour's traces are those starting in it; their spans lie in the hour and the margin
 * on either side (TRACE_SPAN_MARGIN_MS, itself an hour), so an hour's count covers the
 * hour before and the hour after too.
 */

export const HOUR_MS = 3_600_000;
/**
 * Span rows one rollup statement aggregates at most: consecutive hours are rolled up
 * together up to it, and a busier hour alone is rolled up in parts.
 */
export const ROLLUP_SPANS_PER_PART = 2_000_000;
// The counts below take the margin to be one hour bucket on either side.
if (TRACE_SPAN_MARGIN_MS !== HOUR_MS) throw new Error('trace rollups assume a span margin of one hour');

/**
 * Span rows written per project and rollup hour, summed over the hour and its neighbours
 * (where the hour's traces can have spans), and the last write among them; with `ownCount`,
 * also the hour's own (what the rollup pass sizes its runs by; readers do not need it).
 */
function writesPerHourSql(where: string, ownCount = false): string {
  const own = ownCount ? ' sumIf(written, hour = rollup_hour) AS written_in,' : '';
  return `
    SELECT project_id, rollup_hour, sum(written) AS written_around,${own} max(last_written) AS last_written
    FROM (
      SELECT project_id, hour, written, last_written,
        arrayJoin([subtractHours(hour, 1), hour, addHours(hour, 1)]) AS rollup_hour
      FROM span_hour_writes
      WHERE ${where}
    )
    GROUP BY project_id, rollup_hour`;
}

/** An hour whose rollups are missing or out of date, with the write count to record. */
export interface DueRollupHour {
  projectId: string;
  /** The hour's start, ms since the epoch. */
  hourMs: number;
  /** Span rows written to the hour and the hours either side (recorded with its rollups). */
  writtenAround: number;
  /** Span rows written to the hour itself. */
  writtenIn: number;
  /** The version of the hour's current rollups, 0 when it has none. */
  currentVersion: number;
}

/**
 * Hours (of any project) written since their rollups were computed, or never rolled up,
 * whose counts have not moved for `quietMs`: newest first.
 */
export async function findDueRollupHours(storage: Storage, opts: { nowMs: number; quietMs: number; limit: number }): Promise<DueRollupHour[]> {
  const statement = dueRollupHoursSql(opts);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.rollups.due'),
  });
  const rows = await result.json<{ project_id: string; hour_s: string; written_around: string; written_in: string; current_version: string }>();
  return rows.map((r) => ({
    projectId: r.project_id,
    hourMs: Number(r.hour_s) * 1000,
    writtenAround: Number(r.written_around),
    writtenIn: Number(r.written_in),
    currentVersion: Number(r.current_version),
  }));
}

/** The statement of findDueRollupHours. */
export function dueRollupHoursSql(opts: { nowMs: number; quietMs: number; limit: number }): Statement {
  const query = `
      SELECT w.project_id AS project_id, toString(toUnixTimestamp(w.rollup_hour)) AS hour_s,
        toString(w.written_around) AS written_around, toString(w.written_in) AS written_in, toString(r.version) AS current_version
      FROM (${writesPerHourSql('1', true)}) AS w
      LEFT JOIN (SELECT project_id, hour, version, written_around FROM trace_rollup_hours FINAL) AS r
        ON w.project_id = r.project_id AND w.rollup_hour = r.hour
      -- without a rollup the right side reads as 0, and an hour with writes has a count above 0
      WHERE r.written_around != w.written_around AND w.last_written < {quietBefore:DateTime64(3)}
      ORDER BY w.rollup_hour DESC, w.project_id
      LIMIT {limit:UInt32}`;
  return { query, params: { quietBefore: msToDateTimeParam(opts.nowMs - opts.quietMs), limit: opts.limit } };
}

/**
 * Due hours grouped into runs that one statement rolls up: consecutive hours of one
 * project, as many as keep the spans the statement reads (the run's hours and the margin
 * hour on either side) within `spansPerStatement`. Rolled up one by one, every hour read
 * its neighbours' spans as well, so each span was read three times; in a run of n hours
 * it is read (n + 2) / n times. An hour busier than the budget is a run of its own, done
 * in parts. Runs come newest first, as the due hours do.
 */
export function rollupRuns(due: readonly DueRollupHour[], spansPerStatement = ROLLUP_SPANS_PER_PART): DueRollupHour[][] {
  const sorted = [...due].sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : a.hourMs - b.hourMs));
  const runs: DueRollupHour[][] = [];
  let run: DueRollupHour[] = [];
  for (const hour of sorted) {
    const last = run.at(-1);
    const follows = last !== undefined && last.projectId === hour.projectId && hour.hourMs === last.hourMs + HOUR_MS;
    if (follows && spansReadBy([...run, hour]) <= spansPerStatement) {
      run.push(hour);
    } else {
      if (run.length > 0) runs.push(run);
      run = [hour];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs.sort((a, b) => b.at(-1)!.hourMs - a.at(-1)!.hourMs);
}

/**
 * The span rows a run's statement reads: its hours' own rows and those of the margin hour
 * on either side. An hour's count around it is its own and its two neighbours', so the
 * margin hour before the first is what the first counts around it less its own and the
 * second's (after the last likewise); a single hour reads what it counts around it.
 */
function spansReadBy(run: readonly DueRollupHour[]): number {
  if (run.length === 1) return run[0]!.writtenAround;
  const first = run[0]!;
  const last = run.at(-1)!;
  const own = run.reduce((sum, h) => sum + h.writtenIn, 0);
  const before = first.writtenAround - first.writtenIn - run[1]!.writtenIn;
  const after = last.writtenAround - last.writtenIn - run.at(-2)!.writtenIn;
  return own + before + after;
}

/**
 * Computes the rollups of a run of consecutive hours of one project (see rollupRuns) from
 * their spans, then records them as each hour's current ones. The
 * spans are read after the counts were taken, so they hold at least what was counted;
 * rows written in between change an hour's count and make readers skip it. Each hour gets
 * a version of its own (consecutive ones, from the run's first hour on): readers take a
 * version to name one computation of one hour (rows.ts). The hours' summary figures
 * (hour-figures.ts) are taken from the rows just written. The rows of earlier versions
 * stay until dropSupersededRollups.
 */
export async function rollUpHours(storage: Storage, run: readonly DueRollupHour[], opts: { spansPerPart?: number } = {}): Promise<void> {
  const first = run[0];
  const last = run.at(-1);
  if (!first || !last) return;
  const hourIndex = (h: DueRollupHour) => (h.hourMs - first.hourMs) / HOUR_MS;
  const version = nextRowVersions(hourIndex(last) + 1);
  // The aggregation holds every trace's root texts until it ends: an hour too busy for one
  // statement is done in parts by trace id hash (each reads the hour again), all under the
  // same versions. PREWHERE before FINAL: see rows.ts.
  const parts = Math.max(1, Math.ceil(spansReadBy(run) / (opts.spansPerPart ?? ROLLUP_SPANS_PER_PART)));
  const hours = { projectId: first.projectId, firstHourMs: first.hourMs, lastHourMs: last.hourMs };
  for (let part = 0; part < parts; part++) {
    const statement = rollupPartSql(hours, { version, parts, part });
    await storage.client.command({ query: statement.query, query_params: statement.params, ...named(storage, 'traces.rollups.compute') });
  }
  await recordHourFigures(storage, hours, { first: version, last: version + hourIndex(last) });
  const computedAt = Date.now();
  await storage.client.insert({
    table: 'trace_rollup_hours',
    values: run.map((h) => ({ project_id: h.projectId, hour: h.hourMs / 1000, version: version + hourIndex(h), written_around: h.writtenAround, computed_at: computedAt })),
    format: 'JSONEachRow',
    ...named(storage, 'traces.rollups.record'),
  });
}

/** The hours of one rollup statement: a project's consecutive hours from the first to the last. */
export interface RollupHours {
  projectId: string;
  firstHourMs: number;
  lastHourMs: number;
}

/**
 * The statement of one part of rollUpHours: the rollups of the run's traces whose id hash
 * falls in the part, each hour's under `version` plus the hour's place in the run.
 */
export function rollupPartSql(hours: RollupHours, run: { version: number; parts: number; part: number }): Statement {
  const columns = [...TRACE_ROLLUP_COLUMNS, ...TRACE_TEXT_COLUMNS].join(', ');
  const query = `
        INSERT INTO trace_rollups (project_id, hour, version, ${columns})
        SELECT {projectId:String}, toStartOfHour(trace_start),
          {version:UInt64} + intDiv(toUnixTimestamp(toStartOfHour(trace_start)) - toUnixTimestamp(toDateTime({firstHour:DateTime64(3)}, 'UTC')), 3600),
          ${columns}
        FROM (
          SELECT ${TRACE_ROLLUP_SQL}, ${TRACE_TEXT_SQL}
          FROM spans FINAL
          PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
            AND cityHash64(trace_id) % {parts:UInt32} = {part:UInt32}
          GROUP BY trace_id
        )
        WHERE toStartOfHour(trace_start) >= toDateTime({firstHour:DateTime64(3)}, 'UTC')
          AND toStartOfHour(trace_start) <= toDateTime({lastHour:DateTime64(3)}, 'UTC')`;
  const params = {
    projectId: hours.projectId,
    version: run.version,
    parts: run.parts,
    part: run.part,
    firstHour: msToDateTimeParam(hours.firstHourMs),
    lastHour: msToDateTimeParam(hours.lastHourMs),
    scanStart: msToDateTimeParam(hours.firstHourMs - TRACE_SPAN_MARGIN_MS),
    scanEnd: msToDateTimeParam(hours.lastHourMs + HOUR_MS + TRACE_SPAN_MARGIN_MS),
  };
  return { query, params };
}

/**
 * Deletes the rows of versions before the previous one of hours just rolled up again (as
 * they were due: `currentVersion` is then the previous one), so a reader that read the
 * previous record a moment ago still finds its rows. One statement for all of them: a
 * delete costs about a second however few rows it removes (it marks rows in the table's
 * parts), so a pass deletes once, not once per hour. The hours' figures of those versions
 * (hour-figures.ts) go the same way, in a second statement on their much smaller table.
 */
export async function dropSupersededRollups(storage: Storage, rolledUp: readonly DueRollupHour[]): Promise<void> {
  const superseded = rolledUp.filter((h) => h.currentVersion > 0);
  if (superseded.length === 0) return;
  for (const table of ['trace_rollups', 'trace_hour_figures'] as const) {
    const statement = dropSupersededRollupsSql(superseded, storage.cluster, table);
    await storage.client.command({ query: statement.query, query_params: statement.params, ...named(storage, 'traces.rollups.drop-superseded') });
  }
}

/**
 * The statement of dropSupersededRollups for hours rolled up before, on `table`; on a
 * cluster, trace rollups are deleted on every shard's local table (hour figures are
 * replicated to every node: deleting from the table reaches them all).
 */
export function dropSupersededRollupsSql(
  superseded: readonly DueRollupHour[],
  cluster: string | undefined,
  table: 'trace_rollups' | 'trace_hour_figures' = 'trace_rollups',
): Statement {
  const target = cluster && table === 'trace_rollups' ? `trace_rollups_local ON CLUSTER ${cluster}` : table;
  const query = `
      DELETE FROM ${target}
      WHERE project_id IN {projects:Array(String)} AND hour IN {hours:Array(DateTime)}
        AND arrayExists((p, h, previous) -> p = project_id AND h = hour AND version < previous, {projects:Array(String)}, {hours:Array(DateTime)}, {previous:Array(UInt64)})`;
  const params = {
    projects: superseded.map((h) => h.projectId),
    hours: superseded.map((h) => h.hourMs / 1000),
    previous: superseded.map((h) => h.currentVersion),
  };
  return { query, params };
}

/** An hour whose rollups are exact now, and the version to read. */
export interface RolledUpHour {
  /** The hour's start, ms since the epoch. */
  hourMs: number;
  /** Microseconds since the epoch (sql/row-versions.ts): below 2^53 until the year 2255. */
  version: number;
}

/** The hours of the window, of one project, whose rollups are exact (no span written around them since). */
export async function exactRollupHours(
  storage: Storage,
  projectId: string,
  window: { startTimeMs: number; endTimeMs: number },
): Promise<RolledUpHour[]> {
  const statement = exactRollupHoursSql(projectId, window);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.rollups.exact-hours'),
  });
  const rows = await result.json<{ rolled_hour_s: string; rolled_version: string }>();
  return rows.map((r) => ({ hourMs: Number(r.rolled_hour_s) * 1000, version: Number(r.rolled_version) }));
}

/** The statement of exactRollupHours. */
export function exactRollupHoursSql(projectId: string, window: { startTimeMs: number; endTimeMs: number }): Statement {
  const firstHour = Math.floor(window.startTimeMs / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor((window.endTimeMs - 1) / HOUR_MS) * HOUR_MS;
  // Set membership rather than a join: a join's setup alone cost about 15 ms here.
  const query = `
      SELECT toString(toUnixTimestamp(hour)) AS rolled_hour_s, toString(version) AS rolled_version
      FROM trace_rollup_hours FINAL
      WHERE project_id = {projectId:String} AND hour >= toDateTime({firstHour:DateTime64(3)}, 'UTC') AND hour <= toDateTime({lastHour:DateTime64(3)}, 'UTC')
        AND (hour, written_around) IN (
          SELECT rollup_hour, written_around
          FROM (${writesPerHourSql('project_id = {projectId:String} AND hour >= {hoursFrom:DateTime64(3)} AND hour < {hoursTo:DateTime64(3)}')})
        )
      ORDER BY hour`;
  const params = {
    projectId,
    firstHour: msToDateTimeParam(firstHour),
    lastHour: msToDateTimeParam(lastHour),
    hoursFrom: msToDateTimeParam(firstHour - HOUR_MS),
    hoursTo: msToDateTimeParam(lastHour + 2 * HOUR_MS),
  };
  return { query, params };
}
