import { randomBytes } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/**
 * Backfills of an evaluator over a past window. Three tables with one writer each: the
 * request (and its cancellation) written by the API, the progress (cursor, outcome)
 * written by the writer, and one row per judged item, which is what a restarted chunk
 * reads to skip the items already judged.
 */
export type BackfillOutcome = 'running' | 'completed' | 'failed' | 'cancelled';
export type BackfillStatus = 'queued' | BackfillOutcome;

export interface BackfillRecord {
  id: string;
  projectId: string;
  evaluatorId: string;
  evaluatorVersion: number;
  startTime: string;
  endTime: string;
  status: BackfillStatus;
  /** Items it judges. */
  total: number;
  processed: number;
  failed: number;
  scoresWritten: number;
  /** What was announced at the start (items, model calls, tokens). */
  estimate: Record<string, unknown>;
  createdAt: string;
  createdBy: string;
  startedAt: string | null;
  finishedAt: string | null;
  cancelledAt: string | null;
  error: string | null;
}

export interface BackfillProgress {
  cursor: string;
  outcome: BackfillOutcome;
  error: string;
  startedMs: number;
  finishedMs: number | null;
}

interface RequestRow {
  id: string;
  project_id: string;
  evaluator_id: string;
  evaluator_version: number;
  start_ms: string;
  end_ms: string;
  total: string;
  estimate: string;
  created_ms: string;
  created_by: string;
  cancelled_ms: string | null;
}

const REQUEST_COLUMNS = `
    id, project_id, evaluator_id, evaluator_version, total, estimate, created_by,
    toString(toUnixTimestamp64Milli(window_start)) AS start_ms,
    toString(toUnixTimestamp64Milli(window_end)) AS end_ms,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    if(cancelled_at IS NULL, NULL, toString(toUnixTimestamp64Milli(assumeNotNull(cancelled_at)))) AS cancelled_ms`;

export async function createBackfill(
  storage: Storage,
  input: {
    projectId: string;
    evaluatorId: string;
    evaluatorVersion: number;
    startMs: number;
    endMs: number;
    total: number;
    estimate: Record<string, unknown>;
    createdBy: string;
  },
): Promise<BackfillRecord> {
  const now = Date.now();
  const id = `bf_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
  await writeRequest(storage, {
    id,
    project_id: input.projectId,
    evaluator_id: input.evaluatorId,
    evaluator_version: input.evaluatorVersion,
    start_ms: String(input.startMs),
    end_ms: String(input.endMs),
    total: String(input.total),
    estimate: JSON.stringify(input.estimate),
    created_ms: String(now),
    created_by: input.createdBy,
    cancelled_ms: null,
  });
  return (await getBackfill(storage, input.projectId, id))!;
}

/** Marks a backfill cancelled (the writer stops it before its next item). */
export async function markBackfillCancelled(storage: Storage, projectId: string, id: string): Promise<void> {
  const [row] = await selectRequests(storage, backfillsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  if (!row) return;
  await writeRequest(storage, { ...row, cancelled_ms: String(Date.now()) });
}

export async function getBackfill(storage: Storage, projectId: string, id: string): Promise<BackfillRecord | null> {
  const rows = await selectRequests(storage, backfillsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  const [record] = await withProgress(storage, projectId, rows);
  return record ?? null;
}

/** The statement of a page of listBackfills: one row more than the page, to tell if more follow. */
export function backfillListSql(projectId: string, evaluatorId: string, page: { limit: number; beforeId?: string }): Statement {
  const params: Record<string, unknown> = { projectId, evaluatorId, limit: page.limit + 1 };
  let where = 'project_id = {projectId:String} AND evaluator_id = {evaluatorId:String}';
  if (page.beforeId !== undefined) {
    where += ' AND id < {beforeId:String}';
    params.beforeId = page.beforeId;
  }
  return backfillsSql(where, params, 'ORDER BY id DESC LIMIT {limit:UInt32}');
}

/** An evaluator's backfills, newest first, keyset-paginated on the id (ids sort by creation). */
export async function listBackfills(
  storage: Storage,
  projectId: string,
  evaluatorId: string,
  page: { limit: number; beforeId?: string },
): Promise<{ backfills: BackfillRecord[]; nextBeforeId: string | null }> {
  const rows = await selectRequests(storage, backfillListSql(projectId, evaluatorId, page));
  const backfills = await withProgress(storage, projectId, rows.slice(0, page.limit));
  const last = backfills.at(-1);
  return { backfills, nextBeforeId: rows.length > page.limit && last ? last.id : null };
}

export async function getBackfillProgress(storage: Storage, projectId: string, backfillId: string): Promise<BackfillProgress | null> {
  const map = await progressOf(storage, projectId, [backfillId]);
  return map.get(backfillId) ?? null;
}

export async function writeBackfillProgress(storage: Storage, projectId: string, backfillId: string, progress: BackfillProgress): Promise<void> {
  await storage.client.insert({
    table: 'evaluator_backfill_progress',
    values: [
      {
        project_id: projectId,
        backfill_id: backfillId,
        cursor: progress.cursor,
        outcome: progress.outcome,
        error: progress.error,
        started_at: msToDateTimeParam(progress.startedMs),
        finished_at: progress.finishedMs === null ? null : msToDateTimeParam(progress.finishedMs),
        row_version: nextRowVersion(),
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.progress.write'),
  });
}

export interface JudgedItem {
  itemKey: string;
  failed: boolean;
  error: string;
  scoresWritten: number;
}

/** Records judged items of a backfill: a restarted chunk skips them. */
export async function recordBackfillItems(storage: Storage, projectId: string, backfillId: string, items: readonly JudgedItem[]): Promise<void> {
  if (items.length === 0) return;
  const now = msToDateTimeParam(Date.now());
  await storage.client.insert({
    table: 'evaluator_backfill_items',
    values: items.map((i) => ({
      project_id: projectId,
      backfill_id: backfillId,
      item_key: i.itemKey,
      failed: i.failed ? 1 : 0,
      error: i.error,
      scores_written: i.scoresWritten,
      judged_at: now,
    })),
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.items.write'),
  });
}

/** Which of these item keys the backfill has already judged. */
export async function judgedItemKeys(storage: Storage, projectId: string, backfillId: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const result = await storage.client.query({
    query: `
      SELECT DISTINCT item_key FROM evaluator_backfill_items
      WHERE project_id = {projectId:String} AND backfill_id = {backfillId:String} AND item_key IN {keys:Array(String)}`,
    query_params: { projectId, backfillId, keys },
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.items.judged'),
  });
  return new Set((await result.json<{ item_key: string }>()).map((r) => r.item_key));
}

/** The statement selecting the backfill requests a condition picks, with the tail (order, limit) given. */
export function backfillsSql(where: string, params: Record<string, unknown>, tail = ''): Statement {
  return { query: `SELECT ${REQUEST_COLUMNS} FROM evaluator_backfills FINAL WHERE ${where} ${tail}`, params };
}

async function selectRequests(storage: Storage, statement: Statement): Promise<RequestRow[]> {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.read'),
  });
  return result.json<RequestRow>();
}

async function writeRequest(storage: Storage, row: RequestRow): Promise<void> {
  await storage.client.insert({
    table: 'evaluator_backfills',
    values: [
      {
        id: row.id,
        project_id: row.project_id,
        evaluator_id: row.evaluator_id,
        evaluator_version: row.evaluator_version,
        window_start: msToDateTimeParam(Number(row.start_ms)),
        window_end: msToDateTimeParam(Number(row.end_ms)),
        total: Number(row.total),
        estimate: row.estimate,
        created_at: msToDateTimeParam(Number(row.created_ms)),
        created_by: row.created_by,
        cancelled_at: row.cancelled_ms === null ? null : msToDateTimeParam(Number(row.cancelled_ms)),
        row_version: nextRowVersion(),
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.write'),
  });
}

async function progressOf(storage: Storage, projectId: string, ids: readonly string[]): Promise<Map<string, BackfillProgress>> {
  if (ids.length === 0) return new Map();
  const result = await storage.client.query({
    query: `
      SELECT backfill_id, cursor, outcome, error,
        toString(toUnixTimestamp64Milli(started_at)) AS started_ms,
        if(finished_at IS NULL, NULL, toString(toUnixTimestamp64Milli(assumeNotNull(finished_at)))) AS finished_ms
      FROM evaluator_backfill_progress FINAL
      WHERE project_id = {projectId:String} AND backfill_id IN {ids:Array(String)}`,
    query_params: { projectId, ids },
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.backfills.progress.read'),
  });
  const rows = await result.json<{ backfill_id: string; cursor: string; outcome: BackfillOutcome; error: string; started_ms: string; finished_ms: string | null }>();
  return new Map(
    rows.map((r) => [
      r.backfill_id,
      { cursor: r.cursor, outcome: r.outcome, error: r.error, startedMs: Number(r.started_ms), finishedMs: r.finished_ms === null ? null : Number(r.finished_ms) },
    ]),
  );
}

async function withProgress(storage: Storage, projectId: string, rows: readonly RequestRow[]): Promise<BackfillRecord[]> {
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return [];
  const [progress, counts] = await Promise.all([
    progressOf(storage, projectId, ids),
    storage.client
      .query({
        query: `
          SELECT backfill_id, count() AS processed, countIf(failed = 1) AS failed_count, sum(scores_written) AS scores
          FROM evaluator_backfill_items FINAL
          WHERE project_id = {projectId:String} AND backfill_id IN {ids:Array(String)}
          GROUP BY backfill_id`,
        query_params: { projectId, ids },
        format: 'JSONEachRow',
        ...named(storage, 'evaluators.backfills.items.counts'),
      })
      .then((r) => r.json<{ backfill_id: string; processed: string; failed_count: string; scores: string }>()),
  ]);
  const countsById = new Map(counts.map((c) => [c.backfill_id, c]));
  return rows.map((row) => {
    const p = progress.get(row.id);
    const c = countsById.get(row.id);
    const finished = p && p.outcome !== 'running';
    const status: BackfillStatus = finished ? p.outcome : row.cancelled_ms !== null ? 'cancelled' : p ? 'running' : 'queued';
    const iso = (ms: string | number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());
    return {
      id: row.id,
      projectId: row.project_id,
      evaluatorId: row.evaluator_id,
      evaluatorVersion: Number(row.evaluator_version),
      startTime: iso(row.start_ms)!,
      endTime: iso(row.end_ms)!,
      status,
      total: Number(row.total),
      processed: Number(c?.processed ?? 0),
      failed: Number(c?.failed_count ?? 0),
      scoresWritten: Number(c?.scores ?? 0),
      estimate: JSON.parse(row.estimate) as Record<string, unknown>,
      createdAt: iso(row.created_ms)!,
      createdBy: row.created_by,
      startedAt: iso(p?.startedMs),
      finishedAt: iso(p?.finishedMs ?? (row.cancelled_ms !== null && !finished ? row.cancelled_ms : null)),
      cancelledAt: iso(row.cancelled_ms),
      error: p?.error ? p.error : null,
    };
  });
}
