import type { Storage } from '../client/client.ts';
import { readChosenRecords, recordsOfChosenTraces, type ChosenTrace, type ListedTrace } from './chosen.ts';
import { msToDateTimeParam, nanosToDateTimeValue } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { conditionsNeedTexts, figuresNamedIn, type TraceAggregateRow, type TraceRollupColumn } from './aggregate.ts';
import { HOUR_MS, type RolledUpHour } from './rollups.ts';
import { rollupsToRead, traceRowsSql } from './rows.ts';
import { scanEndMs, traceFilterSql, windowOnly, type TraceFilter } from './filter.ts';
import { chooseByTraceStartsSql, indexAgreesWithSpans, startedBeforeWindowSql } from './start-index.ts';

/** A trace chosen for a page, with the value it was sorted by. */
type PageKeyRow = ChosenTrace & Partial<TraceAggregateRow>;

/** The orders a trace list can have: the sort column, its parameter type, and the row's value. */
export const TRACE_SORT_FIELDS = {
  startTime: { column: 'trace_start', type: 'DateTime64(9)', valueOf: (r: PageKeyRow) => r.trace_start_ns },
  duration: { column: 'trace_duration_ms', type: 'Float64', valueOf: (r: PageKeyRow) => String(r.trace_duration_ms) },
  cost: { column: 'trace_cost', type: 'Float64', valueOf: (r: PageKeyRow) => String(r.trace_cost) },
  tokens: { column: 'trace_total_tokens', type: 'UInt64', valueOf: (r: PageKeyRow) => String(r.trace_total_tokens) },
  spanCount: { column: 'span_count', type: 'UInt64', valueOf: (r: PageKeyRow) => r.span_count },
  errors: { column: 'error_count', type: 'UInt64', valueOf: (r: PageKeyRow) => String(r.error_count) },
} as const satisfies Record<string, { column: TraceRollupColumn; type: string; valueOf: (r: PageKeyRow) => string }>;
export type TraceSortField = keyof typeof TRACE_SORT_FIELDS;

const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
const whole = (text: string, max: bigint) => /^\d{1,20}$/.test(text) && BigInt(text) <= max;
/** Sort values each column type can hold, as the decimal strings cursors carry (nanoseconds for startTime). */
const SORT_VALUE_CHECKS: Record<string, (value: string) => boolean> = {
  'DateTime64(9)': (value) => whole(value, INT64_MAX),
  UInt64: (value) => whole(value, UINT64_MAX),
  Float64: (value) => /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value) && Number.isFinite(Number(value)),
};

/**
 * Whether a cursor (decoded by the API) can be one this list made for `sortBy`: a value its
 * sort column's type holds and a trace id. An edited cursor (`1.5` for a count) is refused
 * here rather than by the engine.
 */
export function isTraceCursor(sortBy: TraceSortField, cursor: Partial<TraceCursor>): cursor is TraceCursor {
  const { value, traceId } = cursor;
  return typeof value === 'string' && typeof traceId === 'string' && /^[0-9a-f]{32}$/.test(traceId) && SORT_VALUE_CHECKS[TRACE_SORT_FIELDS[sortBy].type]!(value);
}

/** Where the previous page ended: the sort value of its last trace (a decimal string) and its id. */
export interface TraceCursor {
  value: string;
  traceId: string;
}

export interface TracePageRequest {
  limit: number;
  sortBy: TraceSortField;
  order: 'asc' | 'desc';
  after?: TraceCursor;
  /** Characters of the trace's input and output to show (previews). */
  previewChars: number;
}

export interface TracePage {
  traces: ListedTrace[];
  /** Set when another page may follow. */
  next: TraceCursor | null;
}

/** The first window a start-ordered page looks at; each miss widens it this many times. */
const PROBE_FIRST_MS = HOUR_MS;
const PROBE_GROWTH = 8;

/**
 * Lists traces matching the filter, keyset-paginated on (sort value, trace id).
 *
 * A page in start order only needs the traces nearest its end of the window, so it is
 * looked for in a short window there first (an hour, then 8 times wider each time too
 * few traces were found, up to the whole window). A window that yields more than a page
 * holds the page: every trace outside it starts further from that end. Lists of a busy
 * project then aggregate the spans of an hour or so instead of the whole week.
 */
export async function listTraces(storage: Storage, filter: TraceFilter, page: TracePageRequest): Promise<TracePage> {
  if (page.sortBy !== 'startTime') return listTracesInWindow(storage, filter, page);
  // The index holds trace starts only: it chooses for lists that narrow by the window alone (filter.ts windowOnly).
  if (windowOnly(traceFilterSql(filter))) {
    const fromIndex = await pageFromTraceStarts(storage, filter, page);
    if (fromIndex) return fromIndex;
  }
  for (const { probe, whole } of probeWindows(filter, page, 'hour')) {
    const found = await listTracesInWindow(storage, probe, page);
    if (found.next !== null || whole) return found;
  }
  return { traces: [], next: null };
}

/**
 * The windows a start-ordered page is looked for in, from where it continues (the cursor's
 * start time, inclusive: ties are split by trace id) towards the filter's other edge: the
 * first `first`, an hour or up to the clock hour's edge (so a probe of trace_starts reads
 * one hour of rows), then 8, 64… hours, up to the whole window (`whole`).
 */
function* probeWindows(filter: TraceFilter, page: Pick<TracePageRequest, 'order' | 'after'>, first: 'hour' | 'to-hour-edge'): Generator<{ probe: TraceFilter; whole: boolean }> {
  const edgeMs = page.after ? Math.floor(Number(BigInt(page.after.value) / 1_000_000n)) : undefined;
  const desc = page.order === 'desc';
  const from = desc ? Math.min(filter.endTimeMs, edgeMs === undefined ? Infinity : edgeMs + 1) : Math.max(filter.startTimeMs, edgeMs ?? -Infinity);
  const hourStart = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
  const firstWidth = first === 'hour' ? PROBE_FIRST_MS : desc ? from - hourStart(from - 1) : hourStart(from) + HOUR_MS - from;
  for (let n = 0; ; n++) {
    const width = n === 0 ? firstWidth : PROBE_FIRST_MS * PROBE_GROWTH ** n;
    const probe = desc
      ? { ...filter, startTimeMs: Math.max(filter.startTimeMs, from - width), endTimeMs: from }
      : { ...filter, startTimeMs: from, endTimeMs: Math.min(filter.endTimeMs, from + width) };
    if (probe.startTimeMs >= probe.endTimeMs) return;
    const whole = desc ? probe.startTimeMs === filter.startTimeMs : probe.endTimeMs === filter.endTimeMs;
    yield { probe, whole };
    if (whole) return;
  }
}

/**
 * One page over the filter's whole window from spans, in two steps: the page's traces are
 * chosen by the engine from only the figures the conditions and the order need
 * (chooseTraces), then read whole from the spans of those traces alone (chosen.ts).
 * Planning every figure for the first step cost more than computing the few it needs.
 */
async function listTracesInWindow(storage: Storage, filter: TraceFilter, page: TracePageRequest): Promise<TracePage> {
  const { chosen, next } = await chooseTraces(storage, filter, page);
  const records = await recordsOfChosenTraces(storage, filter.projectId, chosen, msToDateTimeParam(scanEndMs(filter)), page.previewChars);
  return { traces: chosen.map((t) => records.get(t.trace_id)).filter((t): t is ListedTrace => t !== undefined), next };
}

/**
 * A window-only page in start order chosen from trace_starts (start-index.ts), in windows
 * up to the clock hour's edge first (probeWindows), each over its own hours alone; a window
 * too short for a page is widened before any record is read. The records statement asks
 * whether a trace read has a row in the margin; if one has, the page is chosen again over
 * the margin's hours too. Null when the index disagrees with the spans: the caller chooses
 * from spans.
 */
async function pageFromTraceStarts(storage: Storage, filter: TraceFilter, page: TracePageRequest): Promise<TracePage | null> {
  for (const { probe, whole } of probeWindows(filter, page, 'to-hour-edge')) {
    let choice = await chooseFromStatement(storage, chooseByTraceStartsSql(probe, page, 'window'), page);
    // Too few even counting traces that began in the margin: fewer still without them.
    if (choice.next === null && !whole) continue;
    const scanEnd = msToDateTimeParam(scanEndMs(probe));
    const alsoAsk = startedBeforeWindowSql(probe, choice.read);
    let { records, answer: startedBefore } = await readChosenRecords(storage, probe.projectId, choice.chosen, scanEnd, page.previewChars, { alsoAsk });
    if (startedBefore && startedBefore.length > 0) {
      choice = await chooseFromStatement(storage, chooseByTraceStartsSql(probe, page, 'margin'), page);
      if (choice.next === null && !whole) continue;
      records = await recordsOfChosenTraces(storage, probe.projectId, choice.chosen, scanEnd, page.previewChars);
    }
    const { chosen, next } = choice;
    return indexAgreesWithSpans(chosen, records) ? { traces: chosen.map((t) => records.get(t.trace_id)!), next } : null;
  }
  return { traces: [], next: null };
}

/**
 * The traces of one page over the filter's whole window, as the engine chooses them: their
 * ids, times and span counts, in the page's order. All a caller needs that reads their
 * spans itself (a span export, which passes the rolled-up hours it asked for once).
 */
export async function chooseTraces(
  storage: Storage,
  filter: TraceFilter,
  page: Omit<TracePageRequest, 'previewChars'>,
  rollups?: readonly RolledUpHour[],
): Promise<{ chosen: ChosenTrace[]; next: TraceCursor | null }> {
  return chooseFromStatement(storage, chooseTracesSql(filter, page, await rollupsToRead(storage, filter, rollups)), page);
}

/**
 * Runs a choosing statement (up to `page.limit + 1` PageKeyRow) and splits off the next
 * page's cursor; `read` holds the ids of every row, the one past the page included.
 */
async function chooseFromStatement(
  storage: Storage,
  { query, params }: Statement,
  page: Pick<TracePageRequest, 'limit' | 'sortBy'>,
): Promise<{ chosen: ChosenTrace[]; next: TraceCursor | null; read: string[] }> {
  const result = await storage.client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.list.choose'),
  });
  const rows = await result.json<PageKeyRow>();
  const last = rows[page.limit - 1];
  const next = rows.length > page.limit && last ? { value: TRACE_SORT_FIELDS[page.sortBy].valueOf(last), traceId: last.trace_id } : null;
  return { chosen: rows.slice(0, page.limit), next, read: rows.map((r) => r.trace_id) };
}

/**
 * The statement of chooseTraces: up to `page.limit + 1` rows of PageKeyRow (one more than
 * the page tells whether another follows), computing only the figures the conditions and
 * the order need, `rollups` read from trace_rollups.
 */
export function chooseTracesSql(filter: TraceFilter, page: Omit<TracePageRequest, 'previewChars'>, rollups: readonly RolledUpHour[]): Statement {
  const sql = traceFilterSql(filter);
  const sort = TRACE_SORT_FIELDS[page.sortBy];
  const conditions = [...sql.traceConditions];
  const params: Record<string, unknown> = { ...sql.params, limit: page.limit + 1 };
  if (page.after) {
    // Tuple comparison keeps the order total when two traces share a sort value.
    const op = page.order === 'desc' ? '<' : '>';
    conditions.push(`(${sort.column}, trace_id) ${op} ({afterValue:${sort.type}}, {afterTrace:String})`);
    params.afterValue = page.sortBy === 'startTime' ? nanosToDateTimeValue(page.after.value) : page.after.value;
    params.afterTrace = page.after.traceId;
  }
  const direction = page.order === 'desc' ? 'DESC' : 'ASC';
  // A chosen trace's id, times and span count (ChosenTrace), and the value it is sorted by.
  const chosenColumns = [...new Set<TraceRollupColumn>(['trace_id', 'span_count', sort.column])].filter((c) => c !== 'trace_start');
  const columns = [...new Set<TraceRollupColumn>(['trace_start', 'trace_end', ...chosenColumns, ...figuresNamedIn(conditions)])];
  const texts = conditionsNeedTexts(conditions);
  const traceRows = traceRowsSql(filter, sql, rollups, { columns, texts });
  const query = `
      SELECT ${chosenColumns.join(', ')},
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (${traceRows})
      WHERE ${conditions.join(' AND ')}
      ORDER BY ${sort.column} ${direction}, trace_id ${direction}
      LIMIT {limit:UInt32}`;
  // sql.params again: traceRowsSql added the parameters of the rollups it reads.
  return { query, params: { ...params, ...sql.params } };
}
