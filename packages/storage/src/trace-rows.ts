import type { Storage } from './client.ts';
import { msToDateTimeParam } from './sql-values.ts';
import { TRACE_ROLLUP_COLUMNS, TRACE_ROLLUP_SQL, TRACE_TEXT_COLUMNS, TRACE_TEXT_SQL } from './trace-aggregate.ts';
import { TRACE_SPAN_MARGIN_MS, type FilterSql, type TraceFilter } from './trace-filter.ts';
import { exactRollupDays, type RolledUpDay } from './trace-rollups.ts';

const DAY_MS = 86_400_000;

/**
 * The trace rows of a filter's window as a subquery with TRACE_ROLLUP_COLUMNS (and, with
 * `texts`, the root's `trace_input` and `trace_output`): days whose rollups are exact come
 * from trace_rollups, the other days are aggregated from spans (see trace-rollups.ts).
 * The filter's trace_id conditions are applied on both sides; its trace conditions
 * (`sql.traceConditions`) are left to the caller, over these columns. The parameters it
 * adds go into `sql.params`.
 */
export interface TraceRowsOptions {
  texts?: boolean;
  /**
   * The exact rolled-up days, already asked for a wider window (an export asks once for all
   * its slices); only those within this window are used.
   */
  rollups?: readonly RolledUpDay[];
}

export async function traceRowsSql(storage: Storage, filter: TraceFilter, sql: FilterSql, opts: TraceRowsOptions = {}): Promise<string> {
  const columns = [...TRACE_ROLLUP_COLUMNS, ...(opts.texts ? TRACE_TEXT_COLUMNS : [])].join(', ');
  // PREWHERE filters rows before FINAL merges them (and before the heavy columns are read):
  // right here because the conditions look at project, start time and trace id only, which
  // every copy of a span shares (a replay repeats the span). ClickHouse does not move
  // conditions to PREWHERE by itself under FINAL; this took a fifth off a page's figures.
  const live = (window: string) => `
    SELECT ${columns}
    FROM (
      SELECT ${TRACE_ROLLUP_SQL}${opts.texts ? `, ${TRACE_TEXT_SQL}` : ''}
      FROM spans FINAL
      PREWHERE ${[`project_id = {projectId:String}`, window, ...sql.traceIdConditions].join(' AND ')}
      GROUP BY trace_id
    )`;
  // Today is still being written, so its rollups would rarely be exact: a window within it
  // (a page of the newest traces) reads spans without asking.
  const beforeToday = filter.startTimeMs < Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const rolled = filter.traceIds === undefined && beforeToday ? inWindow(filter, opts.rollups ?? (await exactRollupDays(storage, filter.projectId, filter))) : [];
  if (rolled.length === 0) return live('start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}');

  sql.params.rolledUpDays = rolled.map((d) => d.day);
  sql.params.rolledUpVersions = rolled.map((d) => d.version);
  // A version names one computation of one day, so the days and versions match pairwise.
  const fromRollups = `
    SELECT ${columns}
    FROM trace_rollups
    WHERE ${['project_id = {projectId:String}', 'day IN {rolledUpDays:Array(Date)}', 'version IN {rolledUpVersions:Array(UInt64)}', ...sql.traceIdConditions].join(' AND ')}`;
  const rolledDays = new Set(rolled.map((d) => Date.parse(`${d.day}T00:00:00Z`)));
  const liveDays = dayRanges(filter, (day) => !rolledDays.has(day));
  if (liveDays.length === 0) return fromRollups;
  // A trace of a rolled-up day whose spans reach into a live range is that day's: left out here.
  return `${fromRollups}
    UNION ALL
    SELECT * FROM (${live(rangesSql(sql, 'live', liveDays))}) WHERE toDate(trace_start) NOT IN {rolledUpDays:Array(Date)}`;
}

/** The days of the list that the window's days include. */
function inWindow(filter: TraceFilter, days: readonly RolledUpDay[]): RolledUpDay[] {
  const first = Math.floor(filter.startTimeMs / DAY_MS) * DAY_MS;
  return days.filter((d) => {
    const day = Date.parse(`${d.day}T00:00:00Z`);
    return day >= first && day < filter.endTimeMs;
  });
}

/**
 * The span ranges of the window's days that `include` picks: each day with the margin
 * either side, clipped to the window's own scan, adjoining ones merged.
 */
function dayRanges(filter: TraceFilter, include: (dayStartMs: number) => boolean): Array<[number, number]> {
  const scanFrom = filter.startTimeMs - TRACE_SPAN_MARGIN_MS;
  const scanTo = filter.endTimeMs + TRACE_SPAN_MARGIN_MS;
  const ranges: Array<[number, number]> = [];
  for (let day = Math.floor(filter.startTimeMs / DAY_MS) * DAY_MS; day < filter.endTimeMs; day += DAY_MS) {
    if (!include(day)) continue;
    const from = Math.max(scanFrom, day - TRACE_SPAN_MARGIN_MS);
    const to = Math.min(scanTo, day + DAY_MS + TRACE_SPAN_MARGIN_MS);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges;
}

/** Ranges of start_time as one condition, their bounds as parameters named after `name`. */
function rangesSql(sql: FilterSql, name: string, ranges: Array<[number, number]>): string {
  const parts = ranges.map(([from, to], i) => {
    sql.params[`${name}From${i}`] = msToDateTimeParam(from);
    sql.params[`${name}To${i}`] = msToDateTimeParam(to);
    return `(start_time >= {${name}From${i}:DateTime64(3)} AND start_time < {${name}To${i}:DateTime64(3)})`;
  });
  return `(${parts.join(' OR ')})`;
}
