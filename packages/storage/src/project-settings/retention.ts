import type { Storage } from '../client/client.ts';
import { named } from '../sql/query-name.ts';
import { msToDateTimeParam } from '../sql/values.ts';

/** A project's own retention, overriding RETENTION_DAYS: `days` null keeps its traces for ever. */
export interface RetentionOverride {
  projectId: string;
  days: number | null;
  updatedAt: string;
  updatedBy: string;
}

interface OverrideRow {
  project_id: string;
  days: number | null;
  updated_ms: string;
  updated_by: string;
}

const SELECT_OVERRIDES = `
  SELECT project_id, days, toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms, updated_by
  FROM project_retention FINAL`;

function overrideOf(row: OverrideRow): RetentionOverride {
  return { projectId: row.project_id, days: row.days, updatedAt: new Date(Number(row.updated_ms)).toISOString(), updatedBy: row.updated_by };
}

/** The project's override, or null when it follows the default. */
export async function getRetentionOverride(storage: Storage, projectId: string): Promise<RetentionOverride | null> {
  const result = await storage.client.query({
    query: `${SELECT_OVERRIDES} WHERE project_id = {projectId:String}`,
    query_params: { projectId },
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.retention.read'),
  });
  const [row] = await result.json<OverrideRow>();
  return row ? overrideOf(row) : null;
}

/** Every project's override (few: one row per project that set one), for the expiry pass. */
export async function listRetentionOverrides(storage: Storage): Promise<RetentionOverride[]> {
  const result = await storage.client.query({ query: SELECT_OVERRIDES, format: 'JSONEachRow', ...named(storage, 'project-settings.retention.list') });
  return (await result.json<OverrideRow>()).map(overrideOf);
}

/** Sets the project's override (`days` null: keep for ever), or with `days` undefined removes it. */
export async function saveRetentionOverride(
  storage: Storage,
  input: { projectId: string; days: number | null | undefined; updatedBy: string },
): Promise<RetentionOverride | null> {
  const now = Date.now();
  // ReplacingMergeTree keeps the highest version; a clock that went back must not undo a change.
  const result = await storage.client.query({
    query: 'SELECT toString(max(version)) AS version FROM project_retention WHERE project_id = {projectId:String}',
    query_params: { projectId: input.projectId },
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.retention.version'),
  });
  const [{ version: current } = { version: '0' }] = await result.json<{ version: string }>();
  await storage.client.insert({
    table: 'project_retention',
    values: [
      {
        project_id: input.projectId,
        days: input.days ?? null,
        updated_at: msToDateTimeParam(now),
        updated_by: input.updatedBy,
        version: Math.max(now, Number(current) + 1),
        is_deleted: input.days === undefined ? 1 : 0,
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.retention.write'),
  });
  if (input.days === undefined) return null;
  return { projectId: input.projectId, days: input.days, updatedAt: new Date(now).toISOString(), updatedBy: input.updatedBy };
}
