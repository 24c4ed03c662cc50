import type { CostStats, TraceFlag, TraceStep } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { IN_TRACES_HOURS_SQL } from './trace-hours.ts';
import { traceCostOfSpans } from './figures.ts';
import { traceFilterSql, type TraceFilter } from './filter.ts';
import { HOUR_MS, type RolledUpHour } from './rollups.ts';
import { rollupsToRead, traceRowsSql } from './rows.ts';

/**
 * Reads and writes for trace flags (rules in @aos/domain trace-flags.ts). The writer
 * finds traces that went quiet (due.ts), loads what the rules need, and writes one
 * versioned row per trace; the trace filter reads `trace_flags FINAL`.
 */

/** What the rules need of one trace. */
export interface TraceSteps {
  traceId: string;
  spans: TraceStep[];
  /** The trace's cost by the usage rule of TRACE_COLUMNS_SQL. */
  cost: number;
  /** max(ingested_at) of the spans read, ms since the epoch. */
  spansIngestedAt: number;
  /** The hour of the trace's start (its earliest span's), ms since the epoch: the hour trace_rollups files it under. */
  startHourMs: number;
}

/**
 * Outputs longer than this (in bytes) are not empty; only their emptiness is read, not
 * their text. Read from the output's stored preview (its first 1,000 characters, migration
 * 0010), which is the whole output exactly when that is this short, instead of
 * decompressing every whole completion.
 */
const OUTPUT_PROBE_CHARS = 64;

/**
 * The spans (fields the rules need), cost and newest ingest time of each trace; absent
 * traces are left out. One read of the traces' spans: the cost, start hour and ingest time
 * are worked out here from the rows it brings, not by a second, grouping read.
 */
export async function loadTraceSteps(storage: Storage, projectId: string, traceIds: readonly string[]): Promise<TraceSteps[]> {
  if (traceIds.length === 0) return [];
  const result = await storage.client.query({
    query: `
      SELECT trace_id, span_id, name, parent_span_id, span_type, tool_name,
        if(span_type = 'tool' OR tool_name != '', tool_arguments, '') AS arguments,
        if(length(output_preview) <= {probe:UInt32}, output_preview, '(long)') AS output_probe,
        output_tokens, status, cost, ingested_at,
        toString(toUnixTimestamp64Nano(start_time)) AS start_ns
      FROM spans FINAL
      WHERE project_id = {projectId:String} AND ${IN_TRACES_HOURS_SQL} AND trace_id IN {traceIds:Array(String)}
      ORDER BY trace_id, start_time`,
    query_params: { projectId, traceIds, probe: OUTPUT_PROBE_CHARS },
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.steps'),
  });
  // Rows come by trace, in start order within it: a trace's first row is its earliest.
  const byTrace: StepRow[][] = [];
  for (const r of await result.json<StepRow>()) {
    const last = byTrace.at(-1);
    if (last?.[0]!.trace_id === r.trace_id) last.push(r);
    else byTrace.push([r]);
  }
  return byTrace.map((rows) => {
    const startMs = Number(BigInt(rows[0]!.start_ns) / 1_000_000n);
    return {
      traceId: rows[0]!.trace_id,
      spans: rows.map((r) => ({
        spanId: r.span_id,
        name: r.name,
        parentSpanId: r.parent_span_id,
        spanType: r.span_type,
        toolName: r.tool_name,
        toolArguments: r.arguments,
        output: r.output_probe,
        outputTokens: Number(r.output_tokens),
        status: r.status,
        startNs: r.start_ns,
      })),
      cost: traceCostOfSpans(rows),
      spansIngestedAt: rows.reduce((newest, r) => Math.max(newest, Number(r.ingested_at)), 0),
      startHourMs: startMs - (startMs % HOUR_MS),
    };
  });
}

interface StepRow {
  trace_id: string;
  span_id: string;
  name: string;
  parent_span_id: string;
  span_type: string;
  tool_name: string;
  arguments: string;
  output_probe: string;
  output_tokens: string;
  status: string;
  cost: number;
  ingested_at: string;
  start_ns: string;
}

/** The statement of projectCostStats over a window's traces, read from the rolled-up hours given and from spans for the others. */
export function costStatsSql(filter: TraceFilter, rollups: readonly RolledUpHour[]): Statement {
  const sql = traceFilterSql(filter);
  const traces = traceRowsSql(filter, sql, rollups);
  // After traceRowsSql, which adds the parameters of the rollups it reads to sql.params.
  const query = `
      SELECT length(costs) AS traces,
        arrayReduce('quantileExact(0.5)', costs) AS median,
        arrayReduce('quantileExact(0.5)', arrayMap(c -> abs(c - median), costs)) AS mad
      FROM (
        SELECT groupArray(trace_cost) AS costs
        FROM (${traces})
        WHERE ${sql.traceConditions.join(' AND ')} AND trace_cost > 0
      )`;
  return { query, params: sql.params };
}

/**
 * Median and MAD (median absolute deviation) of the cost of the project's traces that
 * started since `sinceMs` and cost anything (traces without model calls would pull both
 * to zero), or null under `minTraces` such traces. Both are exact (quantileExact over
 * the collected costs, one float per trace).
 */
export async function projectCostStats(
  storage: Storage,
  projectId: string,
  opts: { sinceMs: number; minTraces: number },
): Promise<CostStats | null> {
  // Up to a day ahead: spans stamped by a clock running fast still count.
  const filter = { projectId, startTimeMs: opts.sinceMs, endTimeMs: Date.now() + 86_400_000 };
  const statement = costStatsSql(filter, await rollupsToRead(storage, filter));
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.cost-stats'),
  });
  const [row] = await result.json<{ traces: string; median: number; mad: number }>();
  if (!row || Number(row.traces) < opts.minTraces) return null;
  return { median: Number(row.median), mad: Number(row.mad) };
}

export interface TraceFlagsRow {
  projectId: string;
  traceId: string;
  flags: TraceFlag[];
  details: Partial<Record<TraceFlag, string>>;
  spansIngestedAt: number;
  /** The landed time of the trace's newest write the flags were computed after (DueTrace.lastLandedMs), ms since the epoch. */
  spansLandedAt: number;
  /** TraceSteps.startHourMs: lets a summary count the flags of whole rolled-up hours by hour (summary.ts). */
  startHourMs: number;
  computedAtMs: number;
}

/** Writes (or replaces) the flags of traces. */
export async function writeTraceFlags(storage: Storage, rows: readonly TraceFlagsRow[]): Promise<void> {
  if (rows.length === 0) return;
  await storage.client.insert({
    table: 'trace_flags',
    values: rows.map((r) => ({
      project_id: r.projectId,
      trace_id: r.traceId,
      flags: r.flags,
      details: JSON.stringify(r.details),
      spans_ingested_at: r.spansIngestedAt,
      spans_landed_at: msToDateTimeParam(r.spansLandedAt),
      start_hour: r.startHourMs / 1000,
      computed_at: msToDateTimeParam(r.computedAtMs),
      version: nextRowVersion(),
    })),
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.write'),
  });
}

/** A trace's flags as the API shows them: null until the trace has been judged. */
export type JudgedFlags = { flags: string[]; details: Record<string, string> } | null;

/**
 * One trace's flags row as a scalar subquery, for a query about that trace: an empty list
 * until it has been judged, else [(flags, details)]. Reads `{projectId}` and `{traceId}`.
 */
export const TRACE_FLAGS_OF_TRACE_SQL = `(
  SELECT groupArray((flags, details)) FROM trace_flags FINAL
  WHERE project_id = {projectId:String} AND trace_id = {traceId:String})`;

/**
 * The flags of each of the traces `{chosenIds}` in a query that groups their spans by
 * trace_id: an empty list until the row's trace has been judged, else [flags]. The flags
 * rows are read once, by a scalar subquery; each row picks its own.
 */
export const TRACE_FLAGS_OF_CHOSEN_SQL = `arrayMap(f -> f.2, arrayFilter(f -> f.1 = trace_id, (
  SELECT groupArray((trace_id, flags)) FROM trace_flags FINAL
  WHERE project_id = {projectId:String} AND trace_id IN {chosenIds:Array(String)})))`;

/** The flags from TRACE_FLAGS_OF_TRACE_SQL's answer. */
export function judgedFlags(rows: ReadonlyArray<readonly [string[], string]>): JudgedFlags {
  const [row] = rows;
  return row ? { flags: row[0], details: JSON.parse(row[1]) as Record<string, string> } : null;
}

/** The flags of one trace, or null when none were computed yet. */
export async function getTraceFlags(storage: Storage, projectId: string, traceId: string): Promise<JudgedFlags> {
  const result = await storage.client.query({
    query: `SELECT ${TRACE_FLAGS_OF_TRACE_SQL} AS judged`,
    query_params: { projectId, traceId },
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.read'),
  });
  const [row] = await result.json<{ judged: Array<[string[], string]> }>();
  return judgedFlags(row?.judged ?? []);
}
