import { roundCost } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { TRACE_COST_SQL } from '../traces/aggregate.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

export interface FindingReach {
  affectedTraces: number;
  affectedUsers: number;
  affectedSessions: number;
  /** USD of the affected traces, by the trace cost rule of the trace aggregate. */
  affectedCost: number;
}

/** The statement of findingReach over the trace ids of the evidence. */
export function findingReachSql(projectId: string, traceIds: readonly string[]): Statement {
  const query = `
      SELECT count() AS traces, uniqExactIf(user, user != '') AS users, uniqExactIf(session, session != '') AS sessions,
        sum(trace_cost) AS cost
      FROM (
        SELECT trace_id, anyIf(user_id, user_id != '') AS user, anyIf(session_id, session_id != '') AS session, ${TRACE_COST_SQL}
        FROM spans FINAL
        WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
        GROUP BY trace_id
      )`;
  return { query, params: { projectId, traceIds } };
}

/**
 * What a finding's evidence reaches: its traces that exist, their distinct users and
 * sessions, and their cost. Evidence ids are trace ids or `traceId/spanId`.
 */
export async function findingReach(storage: Storage, projectId: string, evidence: readonly string[]): Promise<FindingReach> {
  const traceIds = [...new Set(evidence.map((e) => e.split('/')[0]!).filter((id) => id !== ''))];
  if (traceIds.length === 0) return { affectedTraces: 0, affectedUsers: 0, affectedSessions: 0, affectedCost: 0 };
  const statement = findingReachSql(projectId, traceIds);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'findings.reach'),
  });
  const [row] = await result.json<{ traces: string; users: string; sessions: string; cost: number }>();
  return {
    affectedTraces: Number(row?.traces ?? 0),
    affectedUsers: Number(row?.users ?? 0),
    affectedSessions: Number(row?.sessions ?? 0),
    affectedCost: roundCost(Number(row?.cost ?? 0)),
  };
}
