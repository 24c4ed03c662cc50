import { FINDING_SEVERITIES, type FindingSeverity } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { FINDING_STATUSES, type Finding, type FindingAssetType, type FindingChange, type FindingStatus, type InvestigatorKind } from './finding.ts';

/** Findings read: one by id, its history, a query's page and its counts. */

export async function getFinding(storage: Storage, projectId: string, id: string): Promise<Finding | null> {
  const [found] = await selectFindings(storage, findingsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  return found ?? null;
}

/** Who changed what on a finding, oldest first. */
export async function findingHistory(storage: Storage, projectId: string, id: string): Promise<FindingChange[]> {
  const result = await storage.client.query({
    query: `
      SELECT actor, field, from_value, to_value, toString(toUnixTimestamp64Milli(at)) AS at_ms
      FROM finding_history FINAL
      WHERE project_id = {projectId:String} AND finding_id = {id:String}
      ORDER BY at, id`,
    query_params: { projectId, id },
    format: 'JSONEachRow',
    ...named(storage, 'findings.history.read'),
  });
  type Row = { actor: string; field: 'status' | 'assignee'; from_value: string; to_value: string; at_ms: string };
  return (await result.json<Row>()).map((r) => ({
    at: new Date(Number(r.at_ms)).toISOString(),
    actor: r.actor,
    field: r.field,
    from: r.from_value === '' ? null : r.from_value,
    to: r.to_value === '' ? null : r.to_value,
  }));
}

export interface FindingQuery {
  projectId: string;
  assetType?: FindingAssetType;
  assetId?: string;
  statuses?: FindingStatus[];
  investigatorKind?: InvestigatorKind;
  investigatorId?: string;
  severities?: FindingSeverity[];
}

function findingConditions(q: FindingQuery): { condition: string; params: Record<string, unknown> } {
  const conditions = ['project_id = {projectId:String}'];
  const params: Record<string, unknown> = { projectId: q.projectId };
  const add = (sql: string, name: string, value: unknown) => {
    conditions.push(sql);
    params[name] = value;
  };
  if (q.assetType !== undefined) add('asset_type = {assetType:String}', 'assetType', q.assetType);
  if (q.assetId !== undefined) add('asset_id = {assetId:String}', 'assetId', q.assetId);
  if (q.statuses?.length) add('status IN {statuses:Array(String)}', 'statuses', q.statuses);
  if (q.investigatorKind !== undefined) add('investigator_kind = {investigatorKind:String}', 'investigatorKind', q.investigatorKind);
  if (q.investigatorId !== undefined) add('investigator_id = {investigatorId:String}', 'investigatorId', q.investigatorId);
  if (q.severities?.length) add('severity IN {severities:Array(String)}', 'severities', q.severities);
  return { condition: conditions.join(' AND '), params };
}

/** The statement of a page of listFindings: one row more than the page, to tell if more follow. */
export function findingListSql(q: FindingQuery, page: { limit: number; before?: { lastSeenMs: number; id: string } }): Statement {
  const { condition, params } = findingConditions(q);
  let where = condition;
  if (page.before) {
    where += ' AND (last_seen, id) < ({beforeSeen:DateTime64(3)}, {beforeId:String})';
    params.beforeSeen = msToDateTimeParam(page.before.lastSeenMs);
    params.beforeId = page.before.id;
  }
  params.limit = page.limit + 1;
  return findingsSql(where, params, 'ORDER BY last_seen DESC, id DESC LIMIT {limit:UInt32}');
}

/** Findings of a query, most recently seen first, keyset-paginated on (lastSeen, id). */
export async function listFindings(
  storage: Storage,
  q: FindingQuery,
  page: { limit: number; before?: { lastSeenMs: number; id: string } },
): Promise<{ findings: Finding[]; next: { lastSeenMs: number; id: string } | null }> {
  const found = await selectFindings(storage, findingListSql(q, page));
  const findings = found.slice(0, page.limit);
  const last = findings.at(-1);
  return { findings, next: found.length > page.limit && last ? { lastSeenMs: Date.parse(last.lastSeen), id: last.id } : null };
}

/** The statement of countFindings. */
export function findingCountSql(q: FindingQuery): Statement {
  const { condition, params } = findingConditions(q);
  return { query: `SELECT status, severity, count() AS n FROM findings FINAL WHERE ${condition} GROUP BY status, severity`, params };
}

/** Counts of a query's findings per status and per severity (every value present, 0 when none). */
export async function countFindings(
  storage: Storage,
  q: FindingQuery,
): Promise<{ total: number; byStatus: Record<FindingStatus, number>; bySeverity: Record<FindingSeverity, number> }> {
  const statement = findingCountSql(q);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'findings.count'),
  });
  const byStatus = Object.fromEntries(FINDING_STATUSES.map((s) => [s, 0])) as Record<FindingStatus, number>;
  const bySeverity = Object.fromEntries(FINDING_SEVERITIES.map((s) => [s, 0])) as Record<FindingSeverity, number>;
  let total = 0;
  for (const r of await result.json<{ status: FindingStatus; severity: FindingSeverity; n: string }>()) {
    byStatus[r.status] += Number(r.n);
    bySeverity[r.severity] += Number(r.n);
    total += Number(r.n);
  }
  return { total, byStatus, bySeverity };
}

interface FindingRow {
  id: string;
  project_id: string;
  dedupe_key: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  status: FindingStatus;
  investigator_kind: InvestigatorKind;
  investigator_id: string;
  asset_type: FindingAssetType;
  asset_id: string;
  assignee: string;
  evidence: string[];
  occurrences: string;
  risk_assessment: string;
  first_ms: string;
  last_ms: string;
  created_ms: string;
  updated_ms: string;
}

/** The statement selecting the findings a condition picks, with the tail (order, limit) given. */
export function findingsSql(condition: string, params: Record<string, unknown>, tail = ''): Statement {
  const query = `
      SELECT id, project_id, dedupe_key, title, description, severity, status, investigator_kind, investigator_id,
        asset_type, asset_id, assignee, evidence, toString(occurrences) AS occurrences, risk_assessment,
        toString(toUnixTimestamp64Milli(first_seen)) AS first_ms,
        toString(toUnixTimestamp64Milli(last_seen)) AS last_ms,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
      FROM findings FINAL
      WHERE ${condition}
      ${tail}`;
  return { query, params };
}

/** The findings a statement of findingsSql picks. */
export async function selectFindings(storage: Storage, statement: Statement): Promise<Finding[]> {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'findings.read'),
  });
  const iso = (ms: string) => new Date(Number(ms)).toISOString();
  return (await result.json<FindingRow>()).map((r) => ({
    id: r.id,
    projectId: r.project_id,
    dedupeKey: r.dedupe_key,
    title: r.title,
    description: r.description,
    severity: r.severity,
    status: r.status,
    investigator: { kind: r.investigator_kind, id: r.investigator_id },
    asset: { type: r.asset_type, id: r.asset_id },
    assignee: r.assignee === '' ? null : r.assignee,
    evidence: r.evidence,
    firstSeen: iso(r.first_ms),
    lastSeen: iso(r.last_ms),
    occurrences: Number(r.occurrences),
    riskAssessment: r.risk_assessment === '' ? null : (JSON.parse(r.risk_assessment) as Finding['riskAssessment']),
    createdAt: iso(r.created_ms),
    updatedAt: iso(r.updated_ms),
  }));
}
