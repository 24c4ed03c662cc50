import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';

/**
 * Which of the given traces, spans and sessions exist in the project: the checks a score
 * write makes before anything is stored. One query per kind, whatever the batch size.
 */
export async function existingTraces(storage: Storage, projectId: string, traceIds: readonly string[]): Promise<Set<string>> {
  if (traceIds.length === 0) return new Set();
  const result = await storage.client.query({
    query: 'SELECT DISTINCT trace_id FROM spans WHERE project_id = {projectId:String} AND trace_id IN {ids:Array(String)}',
    query_params: { projectId, ids: traceIds },
    format: 'JSONEachRow',
    ...named(storage, 'scores.targets.traces'),
  });
  return new Set((await result.json<{ trace_id: string }>()).map((r) => r.trace_id));
}

/** Existing spans, as `traceId/spanId` keys. */
export async function existingSpans(
  storage: Storage,
  projectId: string,
  spans: readonly { traceId: string; spanId: string }[],
): Promise<Set<string>> {
  if (spans.length === 0) return new Set();
  const result = await storage.client.query({
    query: `
      SELECT DISTINCT trace_id, span_id FROM spans
      WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)} AND span_id IN {spanIds:Array(String)}`,
    query_params: { projectId, traceIds: spans.map((s) => s.traceId), spanIds: spans.map((s) => s.spanId) },
    format: 'JSONEachRow',
    ...named(storage, 'scores.targets.spans'),
  });
  return new Set((await result.json<{ trace_id: string; span_id: string }>()).map((r) => `${r.trace_id}/${r.span_id}`));
}

export async function existingSessions(storage: Storage, projectId: string, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const result = await storage.client.query({
    query: 'SELECT DISTINCT session_id FROM spans WHERE project_id = {projectId:String} AND session_id IN {ids:Array(String)}',
    query_params: { projectId, ids: sessionIds },
    format: 'JSONEachRow',
    ...named(storage, 'scores.targets.sessions'),
  });
  return new Set((await result.json<{ session_id: string }>()).map((r) => r.session_id));
}
