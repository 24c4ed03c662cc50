import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';

/** A project's masking policy as saved: the JSON the API accepted, and who saved it when. */
export interface StoredMaskingPolicy {
  projectId: string;
  /** The policy document (validated by @aos/masking before it is saved). */
  policy: unknown;
  updatedAt: string;
  updatedBy: string;
  version: number;
}

/** The project's policy, or null when it never saved one. */
export async function getMaskingPolicy(storage: Storage, projectId: string): Promise<StoredMaskingPolicy | null> {
  const result = await storage.client.query({
    query: `
      SELECT policy, updated_by, toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms, toString(version) AS version
      FROM masking_policies FINAL
      WHERE project_id = {projectId:String}`,
    query_params: { projectId },
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.masking-policy.read'),
  });
  const [row] = await result.json<{ policy: string; updated_by: string; updated_ms: string; version: string }>();
  if (!row) return null;
  return {
    projectId,
    policy: JSON.parse(row.policy) as unknown,
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
    updatedBy: row.updated_by,
    version: Number(row.version),
  };
}

/** Replaces the project's policy as a whole. The version only grows, even within one millisecond. */
export async function saveMaskingPolicy(
  storage: Storage,
  input: { projectId: string; policy: unknown; updatedBy: string },
): Promise<StoredMaskingPolicy> {
  const current = await getMaskingPolicy(storage, input.projectId);
  const now = Date.now();
  const version = Math.max(now, (current?.version ?? 0) + 1);
  await storage.client.insert({
    table: 'masking_policies',
    values: [
      { project_id: input.projectId, policy: JSON.stringify(input.policy), updated_at: msToDateTimeParam(now), updated_by: input.updatedBy, version },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.masking-policy.write'),
  });
  return { projectId: input.projectId, policy: input.policy, updatedAt: new Date(now).toISOString(), updatedBy: input.updatedBy, version };
}
