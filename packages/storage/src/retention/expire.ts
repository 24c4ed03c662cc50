import type { ClickHouseSettings } from '@clickhouse/client';
import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { QUIET_TRACE_LOOKBACK_MS } from '../traces/due.ts';

/**
 * What expires with a project's traces, in the order it is deleted, each row found by the
 * project and the cutoff ({cutoff}: traces that started before it expire). The order keeps
 * the writers' passes from making again what was just deleted: an hour's write counts go
 * before its rollups (an hour without writes is never due for one), and a trace's scores
 * and flags, found through its spans, just before them. A flags pass that judged such a
 * trace in between (only traces ingested within its look-back, so history sent lately)
 * leaves flags without spans, which the last step deletes. Findings expire once not seen
 * since the cutoff, with their history.
 */
interface ExpiringTable {
  table: string;
  /** Split by shard on a cluster: deleted from its _local table ON CLUSTER. */
  sharded: boolean;
  where: string;
}

const EXPIRED_TRACES = 'SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)}';
// Versions of one finding carry its last_seen so far: the newest decides.
const EXPIRED_FINDINGS = `
  SELECT id FROM findings WHERE project_id = {projectId:String}
  GROUP BY id HAVING max(last_seen) < {cutoff:DateTime64(3)}`;
// Flags judged within the flags pass's look-back whose trace has no span left.
const ORPHAN_FLAGS = `spans_ingested_at >= {lookbackStart:UInt64} AND trace_id NOT IN (
  SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND ingested_at >= {lookbackStart:UInt64})`;

export const EXPIRING_TABLES: readonly ExpiringTable[] = [
  { table: 'finding_history', sharded: false, where: `finding_id IN (${EXPIRED_FINDINGS})` },
  { table: 'findings', sharded: false, where: `id IN (${EXPIRED_FINDINGS})` },
  { table: 'exports', sharded: false, where: 'started_at < {cutoff:DateTime64(3)}' },
  { table: 'monitor_events', sharded: false, where: 'at < {cutoff:DateTime64(3)}' },
  { table: 'evaluator_backfill_items', sharded: false, where: 'judged_at < {cutoff:DateTime64(3)}' },
  { table: 'span_hour_writes', sharded: true, where: 'hour < {cutoff:DateTime64(3)}' },
  { table: 'trace_rollup_hours', sharded: false, where: 'hour < {cutoff:DateTime64(3)}' },
  { table: 'trace_hour_figures', sharded: false, where: 'hour < {cutoff:DateTime64(3)}' },
  { table: 'trace_rollups', sharded: true, where: 'hour < {cutoff:DateTime64(3)}' },
  { table: 'scores', sharded: false, where: `trace_id IN (${EXPIRED_TRACES})` },
  { table: 'trace_flags', sharded: false, where: `trace_id IN (${EXPIRED_TRACES})` },
  // GenAI event log records kept for their spans' joins: by when they came, like the spans they belong to.
  { table: 'span_log_records', sharded: true, where: 'received_at < {cutoff:DateTime64(3)}' },
  // GenAI metric points: by their own time (they belong to no trace).
  { table: 'genai_metric_points', sharded: true, where: 'time < {cutoff:DateTime64(3)}' },
  { table: 'spans', sharded: true, where: 'start_time < {cutoff:DateTime64(3)}' },
  // The hours a trace's spans start in, once every span of the hour expired: an hour the
  // cutoff falls within keeps its row, else its spans not yet expired could not be found.
  { table: 'trace_hours', sharded: true, where: 'hour < toStartOfHour({cutoff:DateTime64(3)})' },
  // Trace starts by the hour of a block's earliest span, on the same rule: a trace whose
  // spans in the cutoff's hour remain keeps its row, so the list still finds it.
  { table: 'trace_starts', sharded: true, where: 'hour < toStartOfHour({cutoff:DateTime64(3)})' },
  { table: 'trace_flags', sharded: false, where: ORPHAN_FLAGS },
];

/**
 * The projects that may hold data: those with spans written (by hour) and those with keys
 * (whose exports, findings and monitor events outlive their spans).
 */
export async function listProjectsWithData(storage: Storage): Promise<string[]> {
  const result = await storage.client.query({
    query: 'SELECT DISTINCT project_id FROM span_hour_writes UNION DISTINCT SELECT DISTINCT project_id FROM api_keys',
    format: 'JSONEachRow',
    ...named(storage, 'retention.projects'),
  });
  return (await result.json<{ project_id: string }>()).map((r) => r.project_id).sort();
}

/** One step of a project's expiry: whether the table holds expired rows, and their deletion. */
export interface ExpiryStep {
  table: string;
  find: Statement;
  delete: Statement;
}

/** The steps of EXPIRING_TABLES for one project, in order: a pure builder (snapshot-tested). */
export function expirySteps(cluster: string | undefined, projectId: string, cutoffMs: number, nowMs: number): ExpiryStep[] {
  const params = { projectId, cutoff: msToDateTimeParam(cutoffMs), lookbackStart: nowMs - QUIET_TRACE_LOOKBACK_MS };
  return EXPIRING_TABLES.map(({ table, sharded, where }) => {
    const condition = `project_id = {projectId:String} AND ${where}`;
    // The cluster name is validated as an identifier by the config schema.
    const target = cluster && sharded ? `${table}_local ON CLUSTER ${cluster}` : table;
    return {
      table,
      find: { query: `SELECT 1 FROM ${table} WHERE ${condition} LIMIT 1`, params },
      delete: { query: `DELETE FROM ${target} WHERE ${condition}`, params },
    };
  });
}

/**
 * Deletes what expired in one project: the rows of EXPIRING_TABLES older than `cutoffMs`.
 * Each table is first asked whether it holds any (a cheap read on the project's key range),
 * so a pass over projects with nothing to expire writes no mutation. Returns the tables it
 * deleted from.
 */
export async function expireProjectData(storage: Storage, projectId: string, cutoffMs: number, nowMs = Date.now()): Promise<string[]> {
  // A replicated table refuses a mutation with a subquery unless told: each replica runs
  // it on its own, which finds the same rows here (what expired stays expired).
  const settings: ClickHouseSettings | undefined = storage.cluster ? { allow_nondeterministic_mutations: 1 } : undefined;
  const deleted: string[] = [];
  for (const step of expirySteps(storage.cluster, projectId, cutoffMs, nowMs)) {
    const found = await storage.client.query({
      query: step.find.query,
      query_params: step.find.params,
      format: 'JSONEachRow',
      ...named(storage, 'retention.expire.find'),
    });
    if ((await found.json()).length === 0) continue;
    // A lightweight DELETE: the rows vanish from reads when it returns; merges free the space later.
    await storage.client.command({ query: step.delete.query, query_params: step.delete.params, ...named(storage, 'retention.expire.delete', settings) });
    if (!deleted.includes(step.table)) deleted.push(step.table);
  }
  return deleted;
}
