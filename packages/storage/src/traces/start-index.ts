import type { Statement } from '../sql/statement.ts';
import { nanosToDateTimeValue, nanosToIso } from '../sql/values.ts';
import type { ChosenTrace, ListedTrace } from './chosen.ts';
import { traceFilterSql, type TraceFilter } from './filter.ts';

/**
 * Which hours of trace_starts a page is chosen from: 'margin', the window's hours and those
 * of its margin, as the spans path scans (a trace starting before the window has a row
 * there); 'window', the window's hours alone, a third to a half fewer rows for a one-hour
 * probe, trusted only when startedBeforeWindowSql finds none of the candidates in the margin.
 */
export type StartIndexHours = 'margin' | 'window';

/**
 * The statement choosing a start-ordered page of a window-only filter from trace_starts
 * (migration 0022) instead of spans: a row per trace and hour, grouped over `hours`, kept
 * when its earliest start lies in the window. Over the margin's hours the rows cover the
 * spans the spans path scans, so the index's start is never later than the spans': at most
 * earlier. Rows as chooseTraces' (ChosenTrace; span_count is the index's hint, which only
 * steers how the records are computed), up to `page.limit + 1`.
 *
 * Over the window's hours alone, a trace with a row in the margin (so a start before the
 * window's first hour, outside the window) is seen from its later rows only and may be
 * chosen. Every other trace is seen whole, with the start the margin gives it. So when no
 * trace read (the page's and the one after it) has a row in the margin, the rows are the
 * margin's: those traces rank first among the margin's, which are a subset of the window's.
 */
export function chooseByTraceStartsSql(
  filter: TraceFilter,
  page: { limit: number; order: 'asc' | 'desc'; after?: { value: string; traceId: string } },
  hours: StartIndexHours,
): Statement {
  const { params } = traceFilterSql(filter);
  const conditions = ['trace_start >= {startTime:DateTime64(3)}', 'trace_start < {endTime:DateTime64(3)}'];
  const all: Record<string, unknown> = { ...params, limit: page.limit + 1 };
  if (page.after) {
    conditions.push(`(trace_start, trace_id) ${page.order === 'desc' ? '<' : '>'} ({afterValue:DateTime64(9)}, {afterTrace:String})`);
    all.afterValue = nanosToDateTimeValue(page.after.value);
    all.afterTrace = page.after.traceId;
  }
  const direction = page.order === 'desc' ? 'DESC' : 'ASC';
  const query = `
      SELECT trace_id, toString(span_rows) AS span_count,
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (
        SELECT trace_id, min(trace_start) AS trace_start, max(trace_end) AS trace_end, sum(span_rows) AS span_rows
        FROM trace_starts
        WHERE project_id = {projectId:String} AND hour >= toStartOfHour({${hours === 'margin' ? 'scanStart' : 'startTime'}:DateTime64(3)}) AND hour < {scanEnd:DateTime64(3)}
        GROUP BY trace_id
      )
      WHERE ${conditions.join(' AND ')}
      ORDER BY trace_start ${direction}, trace_id ${direction}
      LIMIT {limit:UInt32}`;
  return { query, params: all };
}

/**
 * A scalar subquery for the records statement (chosen.ts, to save a statement): which of
 * `traceIds`, the traces read over the window's hours alone, have a row in the margin's
 * hours before them. Any such trace leaves a 'window' page untrusted. The key (project, hour,
 * trace id) narrows it to the granules holding those ids: none read when none is there.
 */
export function startedBeforeWindowSql(filter: TraceFilter, traceIds: readonly string[]): Statement {
  const { params } = traceFilterSql(filter);
  const query = `(
  SELECT groupUniqArray(trace_id) FROM trace_starts
  WHERE project_id = {projectId:String} AND hour >= toStartOfHour({scanStart:DateTime64(3)}) AND hour < toStartOfHour({startTime:DateTime64(3)})
    AND trace_id IN {probedIds:Array(String)})`;
  return { query, params: { projectId: params.projectId, scanStart: params.scanStart, startTime: params.startTime, probedIds: traceIds } };
}

/**
 * Whether a page chosen from the index is the page the spans give. min in the index never
 * rises, so a span re-sent with a later start leaves the index's start before the spans'
 * (the records are read from the index's start on, so they show the later one), and a
 * trace deleted meanwhile has no spans left: either way the page's order or contents may
 * be wrong, and the caller chooses the page again from spans. Only the chosen traces are
 * checked: a trace whose start moved later than a next page's cursor, while the index keeps
 * it before the cursor, is left out of that page (rare: a span re-sent with a later start).
 */
export function indexAgreesWithSpans(chosen: readonly ChosenTrace[], records: ReadonlyMap<string, ListedTrace>): boolean {
  return chosen.every((t) => records.get(t.trace_id)?.startTime === nanosToIso(t.trace_start_ns));
}
