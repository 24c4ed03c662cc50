import { randomBytes } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import type { ExportFormat } from '../traces/export.ts';
import type { TraceFilter } from '../traces/filter.ts';

/** What an export holds: one row per trace, or one row per span of the matching traces. */
export const EXPORT_KINDS = ['traces', 'spans'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** `running` until the last byte is sent (`completed`) or the export stops early (`failed`). */
export type ExportStatus = 'running' | 'completed' | 'failed';

/** The record of one export, as the API lists it. */
export interface ExportRecord {
  id: string;
  projectId: string;
  /** The API key that asked for it. */
  keyId: string;
  kind: ExportKind;
  format: ExportFormat;
  /** The parsed trace filter the export ran with. */
  filter: Record<string, unknown>;
  status: ExportStatus;
  /** Data rows sent (the CSV header is not counted). */
  rows: number;
  /** Bytes of the response body sent. */
  bytes: number;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface ExportPage {
  exports: ExportRecord[];
  /** The id to pass as `afterId` for the next page, when another may follow. */
  nextAfterId: string | null;
}

/** Ids sort by start time (fixed-width hex milliseconds first), so "newest first" is "id descending". */
function newExportId(now: number): string {
  return `exp_${now.toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`;
}

/** Records an export as running; call `finishExport` with the result when it ends. */
export async function recordExport(
  storage: Storage,
  input: { projectId: string; keyId: string; kind: ExportKind; format: ExportFormat; filter: TraceFilter },
): Promise<ExportRecord> {
  const now = Date.now();
  const record: ExportRecord = {
    id: newExportId(now),
    projectId: input.projectId,
    keyId: input.keyId,
    kind: input.kind,
    format: input.format,
    filter: { ...input.filter },
    status: 'running',
    rows: 0,
    bytes: 0,
    error: null,
    startedAt: new Date(now).toISOString(),
    finishedAt: null,
  };
  await writeExportVersion(storage, record);
  return record;
}

/** Writes the final state of an export: completed, or failed with the reason. */
export async function finishExport(
  storage: Storage,
  record: ExportRecord,
  outcome: { status: 'completed' | 'failed'; rows: number; bytes: number; error?: string },
): Promise<ExportRecord> {
  const finished: ExportRecord = {
    ...record,
    status: outcome.status,
    rows: outcome.rows,
    bytes: outcome.bytes,
    error: outcome.status === 'failed' ? (outcome.error ?? 'failed') : null,
    finishedAt: new Date().toISOString(),
  };
  await writeExportVersion(storage, finished);
  return finished;
}

/** The statement of a page of listExports: one row more than the page, to tell if more follow. */
export function exportListSql(projectId: string, page: { limit: number; afterId?: string }): Statement {
  const conditions = ['project_id = {projectId:String}'];
  const params: Record<string, unknown> = { projectId, limit: page.limit + 1 };
  if (page.afterId !== undefined) {
    conditions.push('id < {afterId:String}');
    params.afterId = page.afterId;
  }
  const query = `
      SELECT id, project_id, key_id, kind, format, filter, status, rows, bytes, error,
        toString(toUnixTimestamp64Milli(started_at)) AS started_ms,
        if(finished_at IS NULL, NULL, toString(toUnixTimestamp64Milli(finished_at))) AS finished_ms
      FROM exports FINAL
      WHERE ${conditions.join(' AND ')}
      ORDER BY id DESC
      LIMIT {limit:UInt32}`;
  return { query, params };
}

/** The project's exports, newest first, keyset-paginated on the id. */
export async function listExports(
  storage: Storage,
  projectId: string,
  page: { limit: number; afterId?: string },
): Promise<ExportPage> {
  const statement = exportListSql(projectId, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'exports.list'),
  });
  const rows = await result.json<ExportRow>();
  const exports = rows.slice(0, page.limit).map(exportRecordFromRow);
  const last = exports[exports.length - 1];
  return { exports, nextAfterId: rows.length > page.limit && last ? last.id : null };
}

/** An export row as the SELECT above returns it (64-bit integers arrive as strings). */
interface ExportRow {
  id: string;
  project_id: string;
  key_id: string;
  kind: ExportKind;
  format: ExportFormat;
  filter: string;
  status: ExportStatus;
  rows: string;
  bytes: string;
  error: string;
  started_ms: string;
  finished_ms: string | null;
}

function exportRecordFromRow(row: ExportRow): ExportRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    keyId: row.key_id,
    kind: row.kind,
    format: row.format,
    filter: parseFilter(row.filter),
    status: row.status,
    rows: Number(row.rows),
    bytes: Number(row.bytes),
    error: row.error || null,
    startedAt: new Date(Number(row.started_ms)).toISOString(),
    finishedAt: row.finished_ms === null ? null : new Date(Number(row.finished_ms)).toISOString(),
  };
}

function parseFilter(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function writeExportVersion(storage: Storage, record: ExportRecord) {
  await storage.client.insert({
    table: 'exports',
    values: [
      {
        id: record.id,
        project_id: record.projectId,
        key_id: record.keyId,
        kind: record.kind,
        format: record.format,
        filter: JSON.stringify(record.filter),
        status: record.status,
        rows: record.rows,
        bytes: record.bytes,
        error: record.error ?? '',
        started_at: msToDateTimeParam(Date.parse(record.startedAt)),
        finished_at: record.finishedAt ? msToDateTimeParam(Date.parse(record.finishedAt)) : null,
        version: nextRowVersion(),
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'exports.write'),
  });
}
