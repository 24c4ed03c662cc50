import { randomBytes } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { pageAfterId } from '../sql/page-after-id.ts';

/**
 * A saved view: a named trace filter (as the query parameters of GET /traces), with sort
 * and columns. The query app validates a view before it is saved; storage keeps it as is.
 */
export interface TraceView {
  id: string;
  projectId: string;
  name: string;
  description: string;
  /** Trace filter parameters: single ones as strings, repeated ones (flag, dim) as string arrays. */
  filter: Record<string, string | string[]>;
  sort: { field: string; order: 'asc' | 'desc' };
  columns: string[];
  /** Who created it: the API key's name and id. */
  owner: string;
  createdAt: string;
  updatedAt: string;
}

export type TraceViewInput = Pick<TraceView, 'name' | 'description' | 'filter' | 'sort' | 'columns'>;

/** Most live views per project. */
export const MAX_TRACE_VIEWS = 500;

export class TraceViewConflictError extends Error {}

export async function createTraceView(
  storage: Storage,
  input: TraceViewInput & { projectId: string; owner: string },
): Promise<TraceView> {
  const now = Date.now();
  const view: TraceView = {
    id: `view_${now.toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`,
    projectId: input.projectId,
    name: input.name,
    description: input.description,
    filter: input.filter,
    sort: input.sort,
    columns: input.columns,
    owner: input.owner,
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
  };
  const live = await selectViews(storage, traceViewsSql('project_id = {projectId:String}', { projectId: input.projectId }));
  if (live.length >= MAX_TRACE_VIEWS) throw new TraceViewConflictError(`a project has at most ${MAX_TRACE_VIEWS} saved views`);
  ensureNameFree(live, view);
  await writeVersion(storage, view, now, false);
  return view;
}

/** Changes the given fields; null when the project has no live view with this id. */
export async function updateTraceView(
  storage: Storage,
  projectId: string,
  id: string,
  patch: Partial<TraceViewInput>,
): Promise<TraceView | null> {
  const live = await selectViews(storage, traceViewsSql('project_id = {projectId:String}', { projectId }));
  const current = live.find((v) => v.view.id === id);
  if (!current) return null;
  const next: TraceView = { ...current.view, ...definedFields(patch) };
  if (next.name !== current.view.name) ensureNameFree(live, next);
  const now = Date.now();
  next.updatedAt = new Date(now).toISOString();
  await writeVersion(storage, next, Math.max(now, current.version + 1), false);
  return next;
}

/** Deletes a live view; false when there is none with this id. */
export async function deleteTraceView(storage: Storage, projectId: string, id: string): Promise<boolean> {
  const [current] = await selectViews(storage, traceViewsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  if (!current) return false;
  await writeVersion(storage, current.view, Math.max(Date.now(), current.version + 1), true);
  return true;
}

export async function getTraceView(storage: Storage, projectId: string, id: string): Promise<TraceView | null> {
  const [found] = await selectViews(storage, traceViewsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  return found?.view ?? null;
}

/** A page of live views in creation order (ids start with their creation time). */
export async function listTraceViews(
  storage: Storage,
  projectId: string,
  page: { limit: number; afterId?: string },
): Promise<{ views: TraceView[]; nextAfterId: string | null }> {
  const found = await selectViews(storage, traceViewListSql(projectId, page));
  const views = found.slice(0, page.limit).map((f) => f.view);
  return { views, nextAfterId: found.length > page.limit ? views.at(-1)!.id : null };
}

/** The statement of a page of listTraceViews: one row more than the page, to tell if more follow. */
export function traceViewListSql(projectId: string, page: { limit: number; afterId?: string }): Statement {
  const { conditions, params } = pageAfterId(projectId, page);
  return traceViewsSql(conditions.join(' AND '), params, 'LIMIT {limit:UInt32}');
}

function ensureNameFree(live: readonly { view: TraceView }[], view: TraceView): void {
  const clash = live.find((v) => v.view.name === view.name && v.view.id !== view.id);
  if (clash) throw new TraceViewConflictError(`a saved view named ${JSON.stringify(view.name)} already exists (${clash.view.id})`);
}

function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function writeVersion(storage: Storage, view: TraceView, version: number, deleted: boolean): Promise<void> {
  await storage.client.insert({
    table: 'trace_views',
    values: [
      {
        id: view.id,
        project_id: view.projectId,
        name: view.name,
        description: view.description,
        filter: JSON.stringify(view.filter),
        sort_field: view.sort.field,
        sort_order: view.sort.order,
        columns: view.columns,
        owner: view.owner,
        created_at: msToDateTimeParam(Date.parse(view.createdAt)),
        updated_at: msToDateTimeParam(Date.parse(view.updatedAt)),
        deleted: deleted ? 1 : 0,
        version,
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.trace-views.write'),
  });
}

interface TraceViewRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  filter: string;
  sort_field: string;
  sort_order: 'asc' | 'desc';
  columns: string[];
  owner: string;
  created_ms: string;
  updated_ms: string;
  version: string;
}

/** The statement selecting the live views a condition picks (a deleted view's newest version carries deleted = 1), in id order. */
export function traceViewsSql(condition: string, params: Record<string, unknown>, tail = ''): Statement {
  const query = `
      SELECT id, project_id, name, description, filter, sort_field, sort_order, columns, owner,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms,
        toString(version) AS version
      FROM trace_views FINAL
      WHERE ${condition} AND deleted = 0
      ORDER BY id ${tail}`;
  return { query, params };
}

async function selectViews(storage: Storage, statement: Statement) {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.trace-views.read'),
  });
  return (await result.json<TraceViewRow>()).map((r) => ({
    version: Number(r.version),
    view: {
      id: r.id,
      projectId: r.project_id,
      name: r.name,
      description: r.description,
      filter: JSON.parse(r.filter) as Record<string, string | string[]>,
      sort: { field: r.sort_field, order: r.sort_order },
      columns: r.columns,
      owner: r.owner,
      createdAt: new Date(Number(r.created_ms)).toISOString(),
      updatedAt: new Date(Number(r.updated_ms)).toISOString(),
    } satisfies TraceView,
  }));
}
