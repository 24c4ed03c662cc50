import type { Storage } from './client.ts';
import { nextRowVersion } from './row-versions.ts';
import { msToDateTimeParam } from './sql-values.ts';
import { TRACE_ROLLUP_COLUMNS, TRACE_ROLLUP_SQL, TRACE_TEXT_COLUMNS, TRACE_TEXT_SQL } from './trace-aggregate.ts';
import { TRACE_SPAN_MARGIN_MS } from './trace-filter.ts';

/**
 * Trace rollups: one row per trace of a past day, so that summaries over many days read a
 * row per trace instead of aggregating every span at query time.
 *
 * They are used only while exact. The engine counts the span rows written to each hour
 * (span_hour_writes, a materialized view over inserts: replays and duplicates count too,
 * so the count only grows). A day is rolled up from its spans once its hours have been
 * quiet for a while, and the computation records the count it saw. A reader uses a day's
 * rollups only while the count of its hours is still that one: any write since (a late
 * span, a replayed batch) makes the day read from spans again until it is recomputed.
 *
 * A day's traces are those starting in it; their spans lie in the day and the margin on
 * either side (TRACE_SPAN_MARGIN_MS, an hour), so a day's count covers those hours too.
 */

const MARGIN_SECONDS = TRACE_SPAN_MARGIN_MS / 1000;
/** Span rows one rollup query aggregates at most (a day with more is rolled up in parts). */
export const ROLLUP_SPANS_PER_PART = 2_000_000;
const DAY_MS = 86_400_000;

/**
 * Span rows written per project and day, summed over the hours the day's traces can have
 * spans in, and the last write among them. With hour buckets and a margin of an hour, a
 * bucket counts for its own day and, at either end of a day, for the neighbouring one.
 */
function writesPerDaySql(where: string): string {
  return `
    SELECT project_id, day, sum(written) AS written_around, max(last_written) AS last_written
    FROM (
      SELECT project_id, written, last_written,
        arrayJoin(arrayDistinct([
          toDate(hour), toDate(addSeconds(hour, ${MARGIN_SECONDS})), toDate(subtractSeconds(hour, ${MARGIN_SECONDS}))
        ])) AS day
      FROM span_hour_writes
      WHERE ${where}
    )
    GROUP BY project_id, day`;
}

/** A day whose rollups are missing or out of date, with the write count to record. */
export interface DueRollupDay {
  projectId: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  writtenAround: number;
  /** The version of the day's current rollups, 0 when it has none. */
  currentVersion: number;
}

/**
 * Days (of any project) written since their rollups were computed, or never rolled up,
 * whose hours have had no write for `quietMs`: newest first.
 */
export async function findDueRollupDays(storage: Storage, opts: { nowMs: number; quietMs: number; limit: number }): Promise<DueRollupDay[]> {
  const result = await storage.client.query({
    query: `
      SELECT w.project_id AS project_id, toString(w.day) AS day, toString(w.written_around) AS written_around,
        toString(r.version) AS current_version
      FROM (${writesPerDaySql('1')}) AS w
      LEFT JOIN (SELECT project_id, day, version, written_around FROM trace_rollup_days FINAL) AS r
        ON w.project_id = r.project_id AND w.day = r.day
      -- without a rollup the right side reads as 0, and a day with writes has a count above 0
      WHERE r.written_around != w.written_around AND w.last_written < {quietBefore:DateTime64(3)}
      ORDER BY w.day DESC, w.project_id
      LIMIT {limit:UInt32}`,
    query_params: { quietBefore: msToDateTimeParam(opts.nowMs - opts.quietMs), limit: opts.limit },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ project_id: string; day: string; written_around: string; current_version: string }>();
  return rows.map((r) => ({
    projectId: r.project_id,
    day: r.day,
    writtenAround: Number(r.written_around),
    currentVersion: Number(r.current_version),
  }));
}

/**
 * Computes the rollups of one day from its spans, then records them as the day's current
 * ones. The spans are read after the count was taken, so they hold at least what it
 * counted; rows written in between change the count and make readers skip the day.
 * Rows of versions before the previous one are deleted: a reader that read the previous
 * record a moment ago still finds its rows.
 */
export async function rollUpDay(storage: Storage, due: DueRollupDay, opts: { spansPerPart?: number } = {}): Promise<void> {
  const version = nextRowVersion();
  const dayStartMs = Date.parse(`${due.day}T00:00:00Z`);
  const columns = [...TRACE_ROLLUP_COLUMNS, ...TRACE_TEXT_COLUMNS].join(', ');
  // The aggregation holds every trace's root texts until it ends: a busy day is done in
  // parts by trace id hash (each reads the day again), all under one version. PREWHERE
  // before FINAL: see trace-rows.ts.
  const parts = Math.max(1, Math.ceil(due.writtenAround / (opts.spansPerPart ?? ROLLUP_SPANS_PER_PART)));
  for (let part = 0; part < parts; part++) {
    await storage.client.command({
      query: `
        INSERT INTO trace_rollups (project_id, day, version, ${columns})
        SELECT {projectId:String}, toDate(trace_start), {version:UInt64}, ${columns}
        FROM (
          SELECT ${TRACE_ROLLUP_SQL}, ${TRACE_TEXT_SQL}
          FROM spans FINAL
          PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
            AND cityHash64(trace_id) % {parts:UInt32} = {part:UInt32}
          GROUP BY trace_id
        )
        WHERE toDate(trace_start) = {day:Date}`,
      query_params: {
        projectId: due.projectId,
        version,
        day: due.day,
        parts,
        part,
        scanStart: msToDateTimeParam(dayStartMs - TRACE_SPAN_MARGIN_MS),
        scanEnd: msToDateTimeParam(dayStartMs + DAY_MS + TRACE_SPAN_MARGIN_MS),
      },
    });
  }
  await storage.client.insert({
    table: 'trace_rollup_days',
    values: [{ project_id: due.projectId, day: due.day, version, written_around: due.writtenAround, computed_at: Date.now() }],
    format: 'JSONEachRow',
  });
  if (due.currentVersion > 0) {
    const table = storage.cluster ? `trace_rollups_local ON CLUSTER ${storage.cluster}` : 'trace_rollups';
    await storage.client.command({
      query: `DELETE FROM ${table} WHERE project_id = {projectId:String} AND day = {day:Date} AND version < {previous:UInt64}`,
      query_params: { projectId: due.projectId, day: due.day, previous: due.currentVersion },
    });
  }
}

/** A day whose rollups are exact now, and the version to read. */
export interface RolledUpDay {
  day: string;
  /** Microseconds since the epoch (row-versions.ts): below 2^53 until the year 2255. */
  version: number;
}

/** The days of the window, of one project, whose rollups are exact (no span written to their hours since). */
export async function exactRollupDays(storage: Storage, projectId: string, window: { startTimeMs: number; endTimeMs: number }): Promise<RolledUpDay[]> {
  const firstDay = Math.floor(window.startTimeMs / DAY_MS) * DAY_MS;
  const lastDay = Math.floor((window.endTimeMs - 1) / DAY_MS) * DAY_MS;
  // Set membership rather than a join: a join's setup alone cost about 15 ms here.
  const result = await storage.client.query({
    query: `
      SELECT toString(day) AS rolled_day, toString(version) AS rolled_version
      FROM trace_rollup_days FINAL
      WHERE project_id = {projectId:String} AND day >= toDate({firstDay:DateTime64(3)}) AND day <= toDate({lastDay:DateTime64(3)})
        AND (day, written_around) IN (
          SELECT day, written_around
          FROM (${writesPerDaySql('project_id = {projectId:String} AND hour >= {hoursFrom:DateTime64(3)} AND hour < {hoursTo:DateTime64(3)}')})
        )
      ORDER BY day`,
    query_params: {
      projectId,
      firstDay: msToDateTimeParam(firstDay),
      lastDay: msToDateTimeParam(lastDay),
      hoursFrom: msToDateTimeParam(firstDay - TRACE_SPAN_MARGIN_MS),
      hoursTo: msToDateTimeParam(lastDay + DAY_MS + TRACE_SPAN_MARGIN_MS),
    },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ rolled_day: string; rolled_version: string }>();
  return rows.map((r) => ({ day: r.rolled_day, version: Number(r.rolled_version) }));
}
