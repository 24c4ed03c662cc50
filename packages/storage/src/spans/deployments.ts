import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';

/** Records deployment ids seen in a project's spans; replays collapse on the table key. */
export async function registerDeployments(storage: Storage, projectId: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const firstSeen = msToDateTimeParam(Date.now());
  await storage.client.insert({
    table: 'deployments',
    values: ids.map((id) => ({ project_id: projectId, deployment_id: id, first_seen: firstSeen })),
    format: 'JSONEachRow',
    ...named(storage, 'spans.deployments.write'),
  });
}

/** Which of these deployment ids the project's spans have named. */
export async function knownDeployments(storage: Storage, projectId: string, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const result = await storage.client.query({
    query: `
      SELECT DISTINCT deployment_id FROM deployments
      WHERE project_id = {projectId:String} AND deployment_id IN {ids:Array(UInt64)}`,
    query_params: { projectId, ids },
    format: 'JSONEachRow',
    ...named(storage, 'spans.deployments.known'),
  });
  return new Set((await result.json<{ deployment_id: string }>()).map((r) => Number(r.deployment_id)));
}
