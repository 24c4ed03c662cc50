import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

export const SCORE_SOURCES = ['api', 'sdk', 'annotation', 'end_user', 'eval'] as const;
export type ScoreSource = (typeof SCORE_SOURCES)[number];
export type ScoreDataType = 'numeric' | 'boolean' | 'categorical';

/** A score as the API returns it. */
export interface ScoreRecord {
  id: string;
  projectId: string;
  traceId: string | null;
  spanId: string | null;
  sessionId: string | null;
  name: string;
  dataType: ScoreDataType;
  value: number | boolean | null;
  stringValue: string | null;
  comment: string;
  source: string;
  externalId: string | null;
  deploymentId: number | null;
  configId: string | null;
  /** The API key that wrote it: only that key may change or remove it. */
  ownerKeyId: string;
  /** Set on scores an evaluator wrote (source `eval`): which evaluator, at which version. */
  evaluatorId: string | null;
  evaluatorVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

/** Where scores are read: one trace (with its spans' scores) or one session. */
export type ScoreTarget = { traceId: string } | { sessionId: string };

const SELECT_COLUMNS = `
    id, project_id, trace_id, span_id, session_id, name, data_type, value, string_value, comment, source,
    external_id, deployment_id, config_id, owner_key_id, evaluator_id, evaluator_version,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms`;

interface ScoreRow {
  id: string;
  project_id: string;
  trace_id: string;
  span_id: string;
  session_id: string;
  name: string;
  data_type: ScoreDataType;
  value: number | null;
  string_value: string | null;
  comment: string;
  source: string;
  external_id: string;
  deployment_id: string | null;
  config_id: string;
  owner_key_id: string;
  evaluator_id: string;
  evaluator_version: number;
  created_ms: string;
  updated_ms: string;
}

/** The live scores with these ids in the project. */
export async function findScores(storage: Storage, projectId: string, ids: readonly string[]): Promise<Map<string, ScoreRecord>> {
  if (ids.length === 0) return new Map();
  const result = await storage.client.query({
    query: `SELECT ${SELECT_COLUMNS} FROM scores FINAL WHERE project_id = {projectId:String} AND id IN {ids:Array(String)}`,
    query_params: { projectId, ids },
    format: 'JSONEachRow',
    ...named(storage, 'scores.find'),
  });
  return new Map((await result.json<ScoreRow>()).map((row) => [row.id, scoreFromRow(row)]));
}

/**
 * Writes new versions of scores in one insert (one block, so all or none land).
 * `deleted` marks removals; the version orders concurrent writes of the same id.
 */
export async function writeScoreVersions(storage: Storage, scores: readonly ScoreRecord[], deleted = false): Promise<void> {
  if (scores.length === 0) return;
  const version = nextRowVersion();
  await storage.client.insert({
    table: 'scores',
    values: scores.map((s) => ({
      id: s.id,
      project_id: s.projectId,
      trace_id: s.traceId ?? '',
      span_id: s.spanId ?? '',
      session_id: s.sessionId ?? '',
      name: s.name,
      data_type: s.dataType,
      value: typeof s.value === 'boolean' ? Number(s.value) : s.value,
      string_value: s.stringValue,
      comment: s.comment,
      source: s.source,
      external_id: s.externalId ?? '',
      deployment_id: s.deploymentId,
      config_id: s.configId ?? '',
      owner_key_id: s.ownerKeyId,
      evaluator_id: s.evaluatorId ?? '',
      evaluator_version: s.evaluatorVersion ?? 0,
      created_at: msToDateTimeParam(Date.parse(s.createdAt)),
      updated_at: msToDateTimeParam(Date.parse(s.updatedAt)),
      version,
      is_deleted: deleted ? 1 : 0,
    })),
    format: 'JSONEachRow',
    ...named(storage, 'scores.write'),
  });
}

export interface ScorePage {
  scores: ScoreRecord[];
  next: { createdMs: string; id: string } | null;
}

/** The statement of a page of listScores: one row more than the page, to tell if more follow. */
export function scoreListSql(projectId: string, target: ScoreTarget, page: { limit: number; after?: { createdMs: string; id: string } }): Statement {
  const params: Record<string, unknown> = { projectId, limit: page.limit + 1 };
  const conditions = ['project_id = {projectId:String}', targetCondition(target, params)];
  if (page.after) {
    conditions.push('(created_at, id) > (fromUnixTimestamp64Milli({afterMs:Int64}), {afterId:String})');
    params.afterMs = page.after.createdMs;
    params.afterId = page.after.id;
  }
  return { query: `SELECT ${SELECT_COLUMNS} FROM scores FINAL WHERE ${conditions.join(' AND ')} ORDER BY created_at, id LIMIT {limit:UInt32}`, params };
}

/** Scores of one trace (trace and span scores) or one session, oldest first, keyset-paginated. */
export async function listScores(
  storage: Storage,
  projectId: string,
  target: ScoreTarget,
  page: { limit: number; after?: { createdMs: string; id: string } },
): Promise<ScorePage> {
  const statement = scoreListSql(projectId, target, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'scores.list'),
  });
  const rows = await result.json<ScoreRow>();
  const last = rows[page.limit - 1];
  return {
    scores: rows.slice(0, page.limit).map(scoreFromRow),
    next: rows.length > page.limit && last ? { createdMs: last.created_ms, id: last.id } : null,
  };
}

export function targetCondition(target: ScoreTarget, params: Record<string, unknown>): string {
  if ('traceId' in target) {
    params.traceId = target.traceId;
    return 'trace_id = {traceId:String}';
  }
  params.sessionId = target.sessionId;
  return 'session_id = {sessionId:String}';
}

export function scoreFromRow(row: ScoreRow): ScoreRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    traceId: row.trace_id || null,
    spanId: row.span_id || null,
    sessionId: row.session_id || null,
    name: row.name,
    dataType: row.data_type,
    value: row.value === null ? null : row.data_type === 'boolean' ? row.value !== 0 : row.value,
    stringValue: row.string_value,
    comment: row.comment,
    source: row.source,
    externalId: row.external_id || null,
    deploymentId: row.deployment_id === null ? null : Number(row.deployment_id),
    configId: row.config_id || null,
    ownerKeyId: row.owner_key_id,
    evaluatorId: row.evaluator_id || null,
    evaluatorVersion: row.evaluator_id ? Number(row.evaluator_version) : null,
    createdAt: new Date(Number(row.created_ms)).toISOString(),
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
  };
}
