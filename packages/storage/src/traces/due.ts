import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import { msToDateTimeParam } from '../sql/values.ts';

/**
 * Which traces the writer's flags pass judges next. trace_writes (migration 0025) has a row
 * per trace per inserted block of spans, ordered by when the block landed; the pass walks
 * it forward in landed time, so each search reads the writes since the last one instead of
 * every span of the last day.
 */

/** How far back in landed time a pass with no earlier position starts (a new process with no judged trace). */
export const QUIET_TRACE_LOOKBACK_MS = 24 * 60 * 60 * 1000;

/**
 * How far before its position a search starts again. A write's landed time is the engine's
 * clock when its block began to be written, and the block is seen only once it is
 * committed: a slow insert can make a write seen after a search already passed its time.
 * The margin also absorbs a writer's clock running ahead of the engine's.
 */
export const DUE_SLACK_MS = 60_000;

export interface DueTrace {
  projectId: string;
  traceId: string;
  /** The landed time of the trace's newest write, ms since the epoch: its flags row records it. */
  lastLandedMs: number;
  /** The flags it was judged to carry before (none when it never was): a finding counts a trace once per flag. */
  previousFlags: string[];
}

/**
 * Traces whose newest write landed between `fromMs` and `toMs` (none later), and whose
 * flags, if any, were computed on an earlier write: in order of that newest write, at most
 * `limit`. A trace with a write after `toMs` is left for the search that reaches it.
 */
export async function findDueTraces(storage: Storage, opts: { fromMs: number; toMs: number; limit: number }): Promise<DueTrace[]> {
  // The traces written in the stretch; their later writes are read only for them.
  const written = `
    SELECT project_id, trace_id FROM trace_writes
    WHERE landed_at >= {from:DateTime64(3)} AND landed_at <= {to:DateTime64(3)}`;
  const result = await storage.client.query({
    query: `
      SELECT w.project_id AS project_id, w.trace_id AS trace_id, toString(toUnixTimestamp64Milli(w.last_landed)) AS last_landed, f.flags AS previous_flags
      FROM (
        SELECT project_id, trace_id, max(landed_at) AS last_landed
        FROM trace_writes
        WHERE landed_at >= {from:DateTime64(3)} AND (project_id, trace_id) IN (${written})
        GROUP BY project_id, trace_id
        HAVING last_landed <= {to:DateTime64(3)}
      ) AS w
      LEFT JOIN (
        SELECT project_id, trace_id, spans_landed_at, flags FROM trace_flags FINAL
        WHERE (project_id, trace_id) IN (${written})
      ) AS f ON w.project_id = f.project_id AND w.trace_id = f.trace_id
      -- without a match the right columns are their defaults, 1970 and no flags
      WHERE f.spans_landed_at < w.last_landed
      ORDER BY w.last_landed, w.project_id, w.trace_id
      LIMIT {limit:UInt32}`,
    query_params: { from: msToDateTimeParam(Math.max(0, opts.fromMs)), to: msToDateTimeParam(Math.max(0, opts.toMs)), limit: opts.limit },
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.due'),
  });
  const rows = await result.json<{ project_id: string; trace_id: string; last_landed: string; previous_flags: string[] }>();
  return rows.map((r) => ({ projectId: r.project_id, traceId: r.trace_id, lastLandedMs: Number(r.last_landed), previousFlags: r.previous_flags }));
}

/**
 * The landed time of the `count`-th write landed after `fromMs` (ms since the epoch), or
 * null when fewer landed: where a search covering about `count` writes ends. Strictly
 * after, so a pass always moves on, even past a millisecond more writes share. The log is
 * ordered by landed time, so this reads only those writes, wherever they lie in time.
 */
export async function landedTimeAfterWrites(storage: Storage, fromMs: number, count: number): Promise<number | null> {
  const result = await storage.client.query({
    query: `
      SELECT toString(toUnixTimestamp64Milli(landed_at)) AS landed FROM trace_writes
      WHERE landed_at > {from:DateTime64(3)}
      ORDER BY landed_at
      LIMIT 1 OFFSET {offset:UInt32}`,
    query_params: { from: msToDateTimeParam(Math.max(0, fromMs)), offset: Math.max(0, count - 1) },
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.stretch'),
  });
  const [row] = await result.json<{ landed: string }>();
  return row ? Number(row.landed) : null;
}

/** The newest write any flags row was computed on, ms since the epoch (0 when none carries one): where a new process's first search may start. */
export async function newestJudgedWrite(storage: Storage): Promise<number> {
  const result = await storage.client.query({
    query: 'SELECT toString(toUnixTimestamp64Milli(max(spans_landed_at))) AS landed FROM trace_flags',
    format: 'JSONEachRow',
    ...named(storage, 'traces.flags.newest-judged'),
  });
  const [row] = await result.json<{ landed: string }>();
  return Number(row?.landed ?? 0);
}
