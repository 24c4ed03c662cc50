import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { TRACE_ROLLUP_COLUMNS, TRACE_TEXT_COLUMNS, TRACE_TEXT_SQL, traceFiguresSql, type TraceRollupColumn } from './aggregate.ts';
import { TRACE_SPAN_MARGIN_MS, type FilterSql, type TraceFilter } from './filter.ts';
import { HOUR_MS, exactRollupHours, type RolledUpHour } from './rollups.ts';

/** Windows this short, or starting this recently, are read from spans without asking for rollups. */
const SHORT_MS = 2 * 3_600_000;

/** What traceRowsSql reads besides the window's trace ids and figures. */
export interface TraceRowsOptions {
  /** The figures wanted (always with trace_id); all that rollups keep when absent. */
  columns?: readonly TraceRollupColumn[];
  texts?: boolean;
  /**
   * Also `hour` and `version` (0 for traces aggregated from spans). Ordered by (hour,
   * version, trace_start, trace_id), the rows are in start order (a trace's hour is that
   * of its start, and an hour's rows share one version), which is how trace_rollups stores
   * them: the engine then streams rolled-up hours as stored instead of sorting them.
   */
  storedOrder?: boolean;
  /**
   * Rolled-up hours (of `rollups`) whose traces the caller reads otherwise (a summary, from
   * their hour figures): left out of the rows, neither read from trace_rollups nor from spans.
   */
  readElsewhere?: readonly RolledUpHour[];
}

/**
 * The rolled-up hours a read of the filter's window uses (see traceRowsSql): `given` when
 * the caller already asked for a wider window (an export asks once for all its slices),
 * else those exact now, asked for only when worth a query.
 */
export async function rollupsToRead(
  storage: Storage,
  filter: TraceFilter,
  given?: readonly RolledUpHour[],
): Promise<readonly RolledUpHour[]> {
  if (given) return given;
  // Asking costs a query. Not worth it for a few given traces, for a window of two hours or
  // less (aggregating that from spans is cheap: a page of traces probes an hour first), nor
  // for one within the last two hours, which are still being written and so rarely exact.
  const worthAsking =
    filter.traceIds === undefined && filter.endTimeMs - filter.startTimeMs > SHORT_MS && filter.startTimeMs < Date.now() - SHORT_MS;
  return worthAsking ? exactRollupHours(storage, filter.projectId, filter) : [];
}

/**
 * The trace rows of a filter's window as a subquery with trace_id, the figures of
 * `opts.columns` (all of TRACE_ROLLUP_COLUMNS by default) and, with `texts`, the root's
 * `trace_input` and `trace_output`: hours of `rollups` (from rollupsToRead; only those
 * within the window are used) come from trace_rollups, the other hours are aggregated
 * from spans (see rollups.ts).
 * The filter's trace_id conditions are applied on both sides; its trace conditions
 * (`sql.traceConditions`) are left to the caller, over these columns. The parameters it
 * adds go into `sql.params`.
 */
export function traceRowsSql(filter: TraceFilter, sql: FilterSql, rollups: readonly RolledUpHour[], opts: TraceRowsOptions = {}): string {
  // trace_start places a live trace in its hour (below).
  const figures = opts.columns ? ['trace_start' as const, ...opts.columns] : TRACE_ROLLUP_COLUMNS;
  const columns = [...new Set(['trace_id', ...figures, ...(opts.texts ? TRACE_TEXT_COLUMNS : [])])].join(', ');
  const order = (hour: string, version: string) => (opts.storedOrder ? `${hour}, ${version}, ` : '');
  // PREWHERE filters rows before FINAL merges them (and before the heavy columns are read):
  // right here because the conditions look at project, start time and trace id only, which
  // every copy of a span shares (a replay repeats the span). ClickHouse does not move
  // conditions to PREWHERE by itself under FINAL; this took a fifth off a page's figures.
  const live = (window: string) => `
    SELECT ${order('toStartOfHour(trace_start) AS hour', 'toUInt64(0) AS version')}${columns}
    FROM (
      SELECT ${traceFiguresSql(figures)}${opts.texts ? `, ${TRACE_TEXT_SQL}` : ''}
      FROM spans FINAL
      PREWHERE ${[`project_id = {projectId:String}`, window, ...sql.traceIdConditions].join(' AND ')}
      GROUP BY trace_id
    )`;
  const split = splitByRollups(filter, rollups, TRACE_SPAN_MARGIN_MS, sql.params, opts.readElsewhere);
  if (!split.anyRolledUp) return live('start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}');
  // With every rolled-up hour read elsewhere and no live hour, no row: the rollups' condition is false.
  const fromRollups = `
    SELECT ${order('hour', 'version')}${columns}
    FROM trace_rollups
    WHERE ${['project_id = {projectId:String}', split.rolled ?? '0', ...sql.traceIdConditions].join(' AND ')}`;
  if (!split.live) return fromRollups;
  // A trace of a rolled-up hour whose spans reach into a live range is that hour's: left out
  // here, by its start when the range read its first spans (the margin), else by its id.
  const leftOut = ['toStartOfHour(trace_start) NOT IN {rolledUpHours:Array(DateTime)}'];
  if (split.crossing) leftOut.push(`trace_id NOT IN (SELECT trace_id FROM trace_rollups WHERE project_id = {projectId:String} AND ${split.crossing})`);
  const fromSpans = `SELECT * FROM (${live(split.live)}) WHERE ${leftOut.join(' AND ')}`;
  return split.rolled ? `${fromRollups}\n    UNION ALL\n    ${fromSpans}` : fromSpans;
}

/**
 * The window's hours split by the rollups known exact: a condition on trace_rollups for
 * the rolled-up ones not in `elsewhere` (parameters `rolledUpHours`: all rolled-up hours of
 * the window, `rolledUpVersions`: those read), and one on span start times for the hours
 * not rolled up, each with `marginMs` either side but before one that follows a rolled-up
 * hour of the window (see hourRanges). `crossing`, a condition on trace_rollups, then
 * keeps the traces of those preceding hours that reach into the range (parameters
 * `crossingHours`, `crossingVersions`): the ones a reader must leave out of the live range's
 * traces. Each is null when it has no hour; `anyRolledUp` says whether the window has a
 * rolled-up hour. The parameters go into `params`.
 */
export function splitByRollups(
  filter: Pick<TraceFilter, 'startTimeMs' | 'endTimeMs'>,
  rollups: readonly RolledUpHour[],
  marginMs: number,
  params: Record<string, unknown>,
  elsewhere: readonly RolledUpHour[] = [],
): { rolled: string | null; live: string | null; crossing: string | null; anyRolledUp: boolean } {
  const rolled = inWindow(filter, rollups);
  const { ranges: liveRanges, cutAfter } = hourRanges(filter, rolled.map((h) => h.hourMs), marginMs);
  const crossing = rolled.filter((h) => cutAfter.includes(h.hourMs));
  if (crossing.length > 0) {
    params.crossingHours = crossing.map((h) => h.hourMs / 1000);
    params.crossingVersions = crossing.map((h) => h.version);
  }
  const skipped = new Set(elsewhere.map((h) => h.hourMs));
  const read = rolled.filter((h) => !skipped.has(h.hourMs));
  if (rolled.length > 0) {
    // Hours go in as seconds since the epoch, a form any DateTime parameter reads.
    params.rolledUpHours = rolled.map((h) => h.hourMs / 1000);
    params.rolledUpVersions = read.map((h) => h.version);
  }
  return {
    // A version names one computation of one hour, so the hours and versions match pairwise
    // (and an hour whose version is not listed is not read).
    rolled: read.length > 0 ? 'hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)}' : null,
    live: liveRanges.length > 0 ? rangesSql(params, 'live', liveRanges) : null,
    // Hours and versions match pairwise, as above; a trace's end is that of its last span.
    crossing:
      crossing.length > 0
        ? 'hour IN {crossingHours:Array(DateTime)} AND version IN {crossingVersions:Array(UInt64)} AND trace_end >= addHours(hour, 1)'
        : null,
    anyRolledUp: rolled.length > 0,
  };
}

/** The rolled-up hours that lie wholly within the window: all their traces start in it. */
export function wholeHours(filter: Pick<TraceFilter, 'startTimeMs' | 'endTimeMs'>, rollups: readonly RolledUpHour[]): RolledUpHour[] {
  return rollups.filter((h) => h.hourMs >= filter.startTimeMs && h.hourMs + HOUR_MS <= filter.endTimeMs);
}

/**
 * `table` (trace_hour_figures or trace_rollups) with a WHERE keeping the rows of the `whole`
 * hours' computations (parameters `wholeHours`, `wholeVersions`, put in `params`).
 */
export function wholeHoursOf(table: string, whole: readonly RolledUpHour[], params: Record<string, unknown>): string {
  params.wholeHours = whole.map((h) => h.hourMs / 1000);
  params.wholeVersions = whole.map((h) => h.version);
  // A version names one computation of one hour, so hours and versions match pairwise.
  return `${table} WHERE project_id = {projectId:String} AND hour IN {wholeHours:Array(DateTime)} AND version IN {wholeVersions:Array(UInt64)}`;
}

/** The hours of the list that the window's hours include. */
function inWindow(filter: Pick<TraceFilter, 'startTimeMs' | 'endTimeMs'>, hours: readonly RolledUpHour[]): RolledUpHour[] {
  const first = Math.floor(filter.startTimeMs / HOUR_MS) * HOUR_MS;
  return hours.filter((h) => h.hourMs >= first && h.hourMs < filter.endTimeMs);
}

/**
 * The span ranges of the window's hours not in `excluded` (rolled-up hour starts within the
 * window): each hour with `marginMs` either side, clipped to the window widened by the
 * margin, adjoining ones merged; but a run of hours that follows an excluded hour starts at
 * its first hour, and `cutAfter` lists those excluded hours. Walks the excluded hours, not
 * the window's: a window of centuries has millions of hours but only as many rolled-up ones
 * as there is data.
 */
function hourRanges(
  filter: Pick<TraceFilter, 'startTimeMs' | 'endTimeMs'>,
  excluded: readonly number[],
  marginMs: number,
): { ranges: Array<[number, number]>; cutAfter: number[] } {
  const scanFrom = filter.startTimeMs - marginMs;
  const scanTo = filter.endTimeMs + marginMs;
  // Runs of consecutive hours to read: their margins overlap, so each run is one range.
  const runs: Array<[number, number]> = [];
  let next = Math.floor(filter.startTimeMs / HOUR_MS) * HOUR_MS;
  for (const hour of [...new Set(excluded)].sort((a, b) => a - b)) {
    if (hour > next) runs.push([next, hour]);
    next = Math.max(next, hour + HOUR_MS);
  }
  if (next < filter.endTimeMs) runs.push([next, Math.floor((filter.endTimeMs - 1) / HOUR_MS) * HOUR_MS + HOUR_MS]);
  const ranges: Array<[number, number]> = [];
  const cutAfter: number[] = [];
  const rolledUp = new Set(excluded);
  for (const [first, end] of runs) {
    // The margin before a run finds no span of the run's own traces (a trace starts with its
    // first span); it finds the spans of traces that started earlier, which come out with a
    // start in the margin hour and are left out by it when that hour is rolled up. When the
    // hour before the run is a rolled-up hour of the window, the margin can go: its rollups
    // are exact, so no span has been written to it, nor to the hour before or after it,
    // since they were computed (rollups.ts). Its rows thus hold every trace starting in it
    // with all its spans up to the run's first hour's end, and the traces of that hour with
    // spans in the run are among those whose end reaches the run (a span ends after it
    // starts): the caller leaves those out by id (`crossing` of splitByRollups), and the scan
    // starts at the run's first hour. Traces starting before that hour have no spans in the
    // run: a trace's spans lie within the margin of its hour, which rollups assume
    // throughout. Without a rollup of the hour before (or with it outside the window), the
    // margin stays.
    const cut = marginMs > 0 && rolledUp.has(first - HOUR_MS);
    if (cut) cutAfter.push(first - HOUR_MS);
    const from = cut ? first : Math.max(scanFrom, first - marginMs);
    const to = Math.min(scanTo, end + marginMs);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return { ranges, cutAfter };
}

/** Ranges of start_time as one condition, their bounds as parameters named after `name`. */
function rangesSql(params: Record<string, unknown>, name: string, ranges: Array<[number, number]>): string {
  const parts = ranges.map(([from, to], i) => {
    params[`${name}From${i}`] = msToDateTimeParam(from);
    params[`${name}To${i}`] = msToDateTimeParam(to);
    return `(start_time >= {${name}From${i}:DateTime64(3)} AND start_time < {${name}To${i}:DateTime64(3)})`;
  });
  return `(${parts.join(' OR ')})`;
}
