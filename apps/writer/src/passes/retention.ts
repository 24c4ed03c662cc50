import { expireProjectData, listProjectsWithData, listRetentionOverrides, type Storage } from '@aos/storage';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RetentionPassOptions {
  /** RETENTION_DAYS; null keeps every project's traces unless it set its own retention. */
  defaultDays: number | null;
  now?: number;
}

/**
 * Deletes, project by project, the traces that started more than its retention ago (its
 * own, else RETENTION_DAYS) and everything derived from them. The cutoff is a whole hour,
 * the unit of the trace rollups, so a rolled-up hour goes with its spans.
 */
export async function runRetentionPass(storage: Storage, opts: RetentionPassOptions): Promise<{ done: number; projects: Record<string, string[]> }> {
  const now = opts.now ?? Date.now();
  const overrides = new Map((await listRetentionOverrides(storage)).map((o) => [o.projectId, o.days]));
  // Without a default, only projects with a retention of their own can have anything expire.
  const candidates = opts.defaultDays === null ? [...overrides.keys()] : await listProjectsWithData(storage);
  const projects: Record<string, string[]> = {};
  for (const projectId of candidates) {
    const days = overrides.has(projectId) ? overrides.get(projectId)! : opts.defaultDays;
    if (days === null) continue;
    const cutoff = Math.floor((now - days * DAY_MS) / HOUR_MS) * HOUR_MS;
    const tables = await expireProjectData(storage, projectId, cutoff, now);
    if (tables.length > 0) projects[projectId] = tables;
  }
  return { done: Object.keys(projects).length, projects };
}
