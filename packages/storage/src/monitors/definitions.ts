import { randomBytes } from 'node:crypto';
import type { FindingSeverity, MonitorCondition, TraceFlag } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import type { GroupName, MeasureName } from '../traces/measures.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import type { TraceFilter } from '../traces/filter.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { pageAfterId } from '../sql/page-after-id.ts';

/**
 * Monitor definitions: one versioned row per change, the definition kept as JSON (the
 * API validates it; the writer reads it whole). Deleting writes a row with deleted = 1.
 */

/** The trace filter of a monitor: the filter model without its window, which the monitor rolls. */
export type MonitorFilter = Omit<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs' | 'flaggedOnly'> & { flags?: TraceFlag[] };

export interface MonitorDefinition {
  name: string;
  description: string;
  measure: MeasureName;
  /** The score name of `score_mean`; null for other measures. */
  scoreName: string | null;
  filter: MonitorFilter;
  /** A group field, or `dim:<key>` for one of the project's dimensions. */
  groupBy: GroupName | null;
  windowSeconds: number;
  intervalSeconds: number;
  condition: MonitorCondition;
  /** Severity of the findings the monitor raises. */
  severity: FindingSeverity;
  enabled: boolean;
  webhookUrl: string | null;
  muted: boolean;
  /** When a mute ends by itself (ISO 8601); null: until unmuted. */
  mutedUntil: string | null;
}

export interface StoredMonitor {
  id: string;
  projectId: string;
  definition: MonitorDefinition;
  /** Chosen by the client; '' when the monitor has no webhook. Never returned whole by the API. */
  webhookSecret: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
}

/** Is the monitor muted at `now` (a mute with an end in the past no longer holds)? */
export function isMuted(def: Pick<MonitorDefinition, 'muted' | 'mutedUntil'>, now: number): boolean {
  return def.muted && (def.mutedUntil === null || Date.parse(def.mutedUntil) > now);
}

/** `mon_` + creation time in hex (ids sort by creation) + 64 random bits. */
function newMonitorId(now: number): string {
  return `mon_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

export async function createMonitor(
  storage: Storage,
  input: { projectId: string; definition: MonitorDefinition; webhookSecret: string; createdBy: string },
): Promise<StoredMonitor> {
  const now = Date.now();
  const monitor: StoredMonitor = {
    id: newMonitorId(now),
    projectId: input.projectId,
    definition: input.definition,
    webhookSecret: input.definition.webhookUrl ? input.webhookSecret : '',
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    createdBy: input.createdBy,
  };
  await writeMonitor(storage, monitor, false);
  return monitor;
}

/** Writes a new version of a monitor (its updatedAt set to now). */
export async function saveMonitor(storage: Storage, monitor: StoredMonitor): Promise<StoredMonitor> {
  const saved = { ...monitor, updatedAt: new Date().toISOString() };
  await writeMonitor(storage, saved, false);
  return saved;
}

/** Deletes a monitor of the project; false when there is none with this id. */
export async function deleteMonitor(storage: Storage, projectId: string, id: string): Promise<boolean> {
  const current = await getMonitor(storage, projectId, id);
  if (!current) return false;
  await writeMonitor(storage, { ...current, updatedAt: new Date().toISOString() }, true);
  return true;
}

export async function getMonitor(storage: Storage, projectId: string, id: string): Promise<StoredMonitor | null> {
  const [found] = await selectMonitors(storage, monitorsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  return found ?? null;
}

/** The statement of a page of listMonitors: one row more than the page, to tell if more follow. */
export function monitorListSql(projectId: string, page: { limit: number; afterId?: string }): Statement {
  const { conditions, params } = pageAfterId(projectId, page);
  return monitorsSql(conditions.join(' AND '), params, 'LIMIT {limit:UInt32}');
}

/** A page of the project's monitors in creation order. */
export async function listMonitors(
  storage: Storage,
  projectId: string,
  page: { limit: number; afterId?: string },
): Promise<{ monitors: StoredMonitor[]; nextAfterId: string | null }> {
  const found = await selectMonitors(storage, monitorListSql(projectId, page));
  const monitors = found.slice(0, page.limit);
  return { monitors, nextAfterId: found.length > page.limit ? monitors.at(-1)!.id : null };
}

/** Every live monitor of every project (id, project, interval, enabled): what the writers schedule. */
export async function listScheduledMonitors(storage: Storage): Promise<Array<{ id: string; projectId: string; intervalSeconds: number; enabled: boolean }>> {
  const found = await selectMonitors(storage, monitorsSql('1', {}));
  return found.map((m) => ({ id: m.id, projectId: m.projectId, intervalSeconds: m.definition.intervalSeconds, enabled: m.definition.enabled }));
}

interface MonitorRow {
  id: string;
  project_id: string;
  definition: string;
  webhook_secret: string;
  created_ms: string;
  updated_ms: string;
  created_by: string;
}

/** The statement selecting the live monitors a condition picks, in project and id order, with the tail (limit) given. */
export function monitorsSql(condition: string, params: Record<string, unknown>, tail = ''): Statement {
  const query = `
      SELECT id, project_id, definition, webhook_secret, created_by,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
      FROM monitors FINAL
      WHERE ${condition} AND deleted = 0
      ORDER BY project_id, id
      ${tail}`;
  return { query, params };
}

async function selectMonitors(storage: Storage, statement: Statement): Promise<StoredMonitor[]> {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'monitors.read'),
  });
  return (await result.json<MonitorRow>()).map((row) => ({
    id: row.id,
    projectId: row.project_id,
    definition: JSON.parse(row.definition) as MonitorDefinition,
    webhookSecret: row.webhook_secret,
    createdAt: new Date(Number(row.created_ms)).toISOString(),
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
    createdBy: row.created_by,
  }));
}

async function writeMonitor(storage: Storage, monitor: StoredMonitor, deleted: boolean): Promise<void> {
  await storage.client.insert({
    table: 'monitors',
    values: [
      {
        id: monitor.id,
        project_id: monitor.projectId,
        definition: JSON.stringify(monitor.definition),
        webhook_secret: monitor.webhookSecret,
        created_at: msToDateTimeParam(Date.parse(monitor.createdAt)),
        updated_at: msToDateTimeParam(Date.parse(monitor.updatedAt)),
        created_by: monitor.createdBy,
        deleted: deleted ? 1 : 0,
        version: nextRowVersion(),
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'monitors.write'),
  });
}
