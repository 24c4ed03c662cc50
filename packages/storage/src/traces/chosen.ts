import type { Storage } from '../client/client.ts';
import { nanosToDateTimeValue } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { TRACE_FIGURES_SQL, traceTextSql, type TraceAggregateRow } from './aggregate.ts';
import { FIGURE_SPAN_TUPLES, traceFiguresOfSpans } from './figures.ts';
import { TRACE_FLAGS_OF_CHOSEN_SQL } from './flags.ts';
import { traceRecordFromRow, type TraceRecord } from './record.ts';

/** A trace already chosen for a page: its id, the times its spans lie between, and how many it has. */
export interface ChosenTrace {
  trace_id: string;
  trace_start_ns: string;
  trace_end_ns: string;
  span_count: string;
}

/** A trace as lists show it: its record and its flags (null until it has been judged). */
export type ListedTrace = TraceRecord & { flags: string[] | null };

/** Characters of input and output the spans table keeps apart (migration 0010), for previews. */
export const STORED_PREVIEW_CHARS = 1000;

/**
 * Up to this many spans in all, a page's figures are computed here from its spans
 * (figures.ts): planning the engine's ~25 figure aggregates costs ~20 ms a query,
 * reading a few hundred spans far less. Pages of bigger traces are aggregated by the engine.
 */
const SPANS_FIGURED_HERE = 5_000;

/**
 * The records of traces chosen by a list (their figures, the first `previewChars` characters
 * of their input and output, and their flags), read from their spans between the
 * earliest start and the latest end among them, and before `scanEnd`, the end of the span
 * range the list saw, so the figures are those it chose them by. A map by trace id; a
 * trace whose spans are gone meanwhile is missing. `figuredHereUpTo` moves the line
 * between the two ways of computing figures (tests hold them equal).
 */
export async function recordsOfChosenTraces(
  storage: Storage,
  projectId: string,
  chosen: readonly ChosenTrace[],
  scanEnd: string,
  previewChars: number,
  figuredHereUpTo = SPANS_FIGURED_HERE,
): Promise<Map<string, ListedTrace>> {
  return (await readChosenRecords(storage, projectId, chosen, scanEnd, previewChars, { figuredHereUpTo })).records;
}

/**
 * recordsOfChosenTraces, with `alsoAsk`, a scalar subquery answering an array of strings,
 * asked in the same statement (a statement of the embedded engine costs ~10 ms of planning
 * however small): its answer, or undefined when no record was read (nothing chosen, or
 * every chosen trace gone).
 */
export async function readChosenRecords(
  storage: Storage,
  projectId: string,
  chosen: readonly ChosenTrace[],
  scanEnd: string,
  previewChars: number,
  { figuredHereUpTo = SPANS_FIGURED_HERE, alsoAsk }: { figuredHereUpTo?: number; alsoAsk?: Statement },
): Promise<{ records: Map<string, ListedTrace>; answer: string[] | undefined }> {
  if (chosen.length === 0) return { records: new Map(), answer: undefined };
  const here = chosen.reduce((spans, t) => spans + Number(t.span_count), 0) <= figuredHereUpTo;
  const { query, params } = chosenTraceRecordsSql(projectId, chosen, scanEnd, previewChars, here, alsoAsk);
  const result = await storage.client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.list.records'),
  });
  type Row = TraceAggregateRow & { trace_span_rows: unknown[][]; trace_flag_lists: string[][]; also_asked?: string[] };
  const rows = await result.json<Row>();
  const rest = (row: Row) => ({ input: row.trace_input, output: row.trace_output, flags: row.trace_flag_lists[0] ?? null });
  const records = new Map(
    rows.map((row): [string, ListedTrace] => [
      row.trace_id,
      here
        ? { ...traceFiguresOfSpans(row.trace_id, row.trace_span_rows.map(FIGURE_SPAN_TUPLES.rowOf)), ...rest(row) }
        : { ...traceRecordFromRow(row), ...rest(row) },
    ]),
  );
  return { records, answer: rows[0]?.also_asked };
}

/**
 * The statement of recordsOfChosenTraces for one or more chosen traces: per trace, its
 * spans' figure tuples when `figuredHere` (figures.ts computes the figures), else the
 * engine's figures; then the previews and flags, and `alsoAsk`'s answer as also_asked.
 */
export function chosenTraceRecordsSql(
  projectId: string,
  chosen: readonly ChosenTrace[],
  scanEnd: string,
  previewChars: number,
  figuredHere: boolean,
  alsoAsk?: Statement,
): Statement {
  let from = chosen[0]!.trace_start_ns;
  let to = chosen[0]!.trace_end_ns;
  for (const t of chosen) {
    if (BigInt(t.trace_start_ns) < BigInt(from)) from = t.trace_start_ns;
    if (BigInt(t.trace_end_ns) > BigInt(to)) to = t.trace_end_ns;
  }
  // A preview no longer than the stored one is cut from it, never from the whole text.
  const text = (field: 'input' | 'output') =>
    `leftUTF8(${traceTextSql(field, previewChars <= STORED_PREVIEW_CHARS ? `${field}_preview` : field)}, {previewChars:UInt32}) AS trace_${field}`;
  // PREWHERE before FINAL holds for key columns (see rows.ts). A page figured here reads a
  // few granules: one thread plans and reads them for less engine CPU than the default
  // (issue 33, 100M spans: 37.5 vs 40.7 ms, medians of 21); big traces keep every thread.
  const query = `
      SELECT ${figuredHere ? `trace_id, ${FIGURE_SPAN_TUPLES.sql} AS trace_span_rows` : TRACE_FIGURES_SQL},
        ${text('input')}, ${text('output')}, ${TRACE_FLAGS_OF_CHOSEN_SQL} AS trace_flag_lists${alsoAsk ? `,
        ${alsoAsk.query} AS also_asked` : ''}
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND trace_id IN {chosenIds:Array(String)}
        AND start_time >= {chosenFrom:DateTime64(9)} AND start_time <= {chosenTo:DateTime64(9)} AND start_time < {scanEnd:DateTime64(3)}
      GROUP BY trace_id${figuredHere ? `
      SETTINGS max_threads = 1` : ''}`;
  return {
    query,
    params: {
      ...alsoAsk?.params,
      projectId,
      chosenIds: chosen.map((t) => t.trace_id),
      chosenFrom: nanosToDateTimeValue(from),
      chosenTo: nanosToDateTimeValue(to),
      scanEnd,
      previewChars,
    },
  };
}
