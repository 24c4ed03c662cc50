import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { TRACE_ROLLUP_COLUMNS, TRACE_ROLLUP_SQL, TRACE_TEXT_COLUMNS, TRACE_TEXT_SQL } from './aggregate.ts';
import { TRACE_SPAN_MARGIN_MS } from './filter.ts';

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
/** Span rows one rollup query aggregates at most (a busier hour is rolled up in parts). */
export const ROLLUP_SPANS_PER_PART = 2_000_000;
// The counts below take the margin to be one hour bucket on either side.
if (TRACE_SPAN_MARGIN_MS !== HOUR_MS) throw new Error('trace rollups assume a span margin of one hour');

/**
 * Span rows written per project and rollup hour, summed over the hour and its neighbours
 * (where the hour's traces can have spans), and the last write among them.
 */
function writesPerHourSql(where: string): string {
  return `
    SELECT project_id, rollup_hour, sum(written) AS written_around, max(last_written) AS last_written
    FROM (
      SELECT project_id, written, last_written,
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
  writtenAround: number;
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
  const rows = await result.json<{ project_id: string; hour_s: string; written_around: string; current_version: string }>();
  return rows.map((r) => ({
    projectId: r.project_id,
    hourMs: Number(r.hour_s) * 1000,
    writtenAround: Number(r.written_around),
    currentVersion: Number(r.current_version),
  }));
}

/** The statement of findDueRollupHours. */
export function dueRollupHoursSql(opts: { nowMs: number; quietMs: number; limit: number }): Statement {
  const query = `
      SELECT w.project_id AS project_id, toString(toUnixTimestamp(w.rollup_hour)) AS hour_s,
        toString(w.written_around) AS written_around, toString(r.version) AS current_version
      FROM (${writesPerHourSql('1')}) AS w
      LEFT JOIN (SELECT project_id, hour, version, written_around FROM trace_rollup_hours FINAL) AS r
        ON w.project_id = r.project_id AND w.rollup_hour = r.hour
      -- without a rollup the right side reads as 0, and an hour with writes has a count above 0
      WHERE r.written_around != w.written_around AND w.last_written < {quietBefore:DateTime64(3)}
      ORDER BY w.rollup_hour DESC, w.project_id
      LIMIT {limit:UInt32}`;
  return { query, params: { quietBefore: msToDateTimeParam(opts.nowMs - opts.quietMs), limit: opts.limit } };
}

/**
 * Computes the rollups of one hour from its spans, then records them as the hour's current
 * ones. The spans are read after the count was taken, so they hold at least what it
 * counted; rows written in between change the count and make readers skip the hour.
 * The rows of earlier versions stay until dropSupersededRollups.
 */
export async function rollUpHour(storage: Storage, due: DueRollupHour, opts: { spansPerPart?: number } = {}): Promise<void> {
  const version = nextRowVersion();
  // The aggregation holds every trace's root texts until it ends: a busy hour is done in
  // parts by trace id hash (each reads the hour again), all under one version. PREWHERE
  // before FINAL: see rows.ts.
  const parts = Math.max(1, Math.ceil(due.writtenAround / (opts.spansPerPart ?? ROLLUP_SPANS_PER_PART)));
  for (let part = 0; part < parts; part++) {
    const statement = rollupPartSql(due, { version, parts, part });
    await storage.client.command({ query: statement.query, query_params: statement.params, ...named(storage, 'traces.rollups.compute') });
  }
  await storage.client.insert({
    table: 'trace_rollup_hours',
    values: [{ project_id: due.projectId, hour: due.hourMs / 1000, version, written_around: due.writtenAround, computed_at: Date.now() }],
    format: 'JSONEachRow',
    ...named(storage, 'traces.rollups.record'),
  });
}

/** The statement of one part of rollUpHour: the rollups of the hour's traces whose id hash falls in the part. */
export function rollupPartSql(due: Pick<DueRollupHour, 'projectId' | 'hourMs'>, run: { version: number; parts: number; part: number }): Statement {
  const columns = [...TRACE_ROLLUP_COLUMNS, ...TRACE_TEXT_COLUMNS].join(', ');
  const query = `
        INSERT INTO trace_rollups (project_id, hour, version, ${columns})
        SELECT {projectId:String}, toStartOfHour(trace_start), {version:UInt64}, ${columns}
        FROM (
          SELECT ${TRACE_ROLLUP_SQL}, ${TRACE_TEXT_SQL}
          FROM spans FINAL
          PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
            AND cityHash64(trace_id) % {parts:UInt32} = {part:UInt32}
          GROUP BY trace_id
        )
        WHERE toStartOfHour(trace_start) = toDateTime({hour:DateTime64(3)}, 'UTC')`;
  const params = {
    projectId: due.projectId,
    version: run.version,
    parts: run.parts,
    part: run.part,
    hour: msToDateTimeParam(due.hourMs),
    scanStart: msToDateTimeParam(due.hourMs - TRACE_SPAN_MARGIN_MS),
    scanEnd: msToDateTimeParam(due.hourMs + HOUR_MS + TRACE_SPAN_MARGIN_MS),
  };
  return { query, params };
}

/**
 * Deletes the rows of versions before the previous one of hours just rolled up again (as
 * they were due: `currentVersion` is then the previous one), so a reader that read the
 * previous record a moment ago still finds its rows. One statement for all of them: a
 * delete costs about a second however few rows it removes (it marks rows in the table's
 * parts), so a pass deletes once, not once per hour.
 */
export async function dropSupersededRollups(storage: Storage, rolledUp: readonly DueRollupHour[]): Promise<void> {
  const superseded = rolledUp.filter((h) => h.currentVersion > 0);
  if (superseded.length === 0) return;
  const statement = dropSupersededRollupsSql(superseded, storage.cluster);
  await storage.client.command({ query: statement.query, query_params: statement.params, ...named(storage, 'traces.rollups.drop-superseded') });
}

/** The statement of dropSupersededRollups for hours rolled up before; on a cluster, run on every shard's local table. */
export function dropSupersededRollupsSql(superseded: readonly DueRollupHour[], cluster: string | undefined): Statement {
  const table = cluster ? `trace_rollups_local ON CLUSTER ${cluster}` : 'trace_rollups';
  const query = `
      DELETE FROM ${table}
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
