import { createHash, randomUUID } from 'node:crypto';
import { FINDING_SEVERITIES, type FindingSeverity, type RiskAssessment } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { keyedSerializer } from '../sql/keyed-serializer.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { named } from '../sql/query-name.ts';

/**
 * Findings: problems worth investigating, raised by monitors, evaluators, trace flags,
 * masking or people. `raiseFinding` is the one way to record a detection: repeated
 * detections of one problem (same dedupe key) update the open finding instead of adding
 * another. Each change is a new version of the row; status and assignee changes also
 * leave a history row.
 */

export const FINDING_STATUSES = ['open', 'investigating', 'resolved', 'dismissed'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** What found the problem. */
export const INVESTIGATOR_KINDS = ['monitor', 'evaluator', 'trace_flag', 'masking', 'person'] as const;
export type InvestigatorKind = (typeof INVESTIGATOR_KINDS)[number];

/** What the problem is about. */
export const FINDING_ASSET_TYPES = ['project', 'trace', 'span', 'session', 'monitor', 'evaluator'] as const;
export type FindingAssetType = (typeof FINDING_ASSET_TYPES)[number];

/** Allowed status moves; resolved and dismissed findings can be reopened. */
export const FINDING_MOVES: Record<FindingStatus, readonly FindingStatus[]> = {
  open: ['investigating', 'resolved', 'dismissed'],
  investigating: ['open', 'resolved', 'dismissed'],
  resolved: ['open'],
  dismissed: ['open'],
};

const ACTIVE_STATUSES: readonly FindingStatus[] = ['open', 'investigating'];
/** Evidence ids kept per finding, newest first. */
export const MAX_EVIDENCE = 100;

export interface Finding {
  id: string;
  projectId: string;
  dedupeKey: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  status: FindingStatus;
  investigator: { kind: InvestigatorKind; id: string };
  asset: { type: FindingAssetType; id: string };
  assignee: string | null;
  /** Trace ids, or `traceId/spanId` for spans, newest first. */
  evidence: string[];
  firstSeen: string;
  lastSeen: string;
  occurrences: number;
  riskAssessment: (RiskAssessment & { assessedAt: string; assessedBy: string }) | null;
  createdAt: string;
  updatedAt: string;
}

export interface RaiseFindingInput {
  projectId: string;
  /**
   * Names "the same problem": detections with one key update one open finding. Build it
   * from investigator, rule and asset, e.g. `monitor:<id>:<group>`, `trace_flag:loop`,
   * `evaluator:<id>:trace:<traceId>`, `masking:<rule>:trace:<traceId>`.
   */
  dedupeKey: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  investigator: { kind: InvestigatorKind; id: string };
  asset: { type: FindingAssetType; id: string };
  evidence?: readonly string[];
  /** Detections this call stands for (default 1). */
  occurrences?: number;
  /** When it was seen (default now). */
  seenAtMs?: number;
}

const serialized = keyedSerializer();

/**
 * Records a detection. When the project has an open or investigating finding with the
 * same dedupe key, it is updated (last seen, occurrences, evidence, description, and the
 * severity if higher); otherwise a new open finding is made.
 *
 * The id of a new finding is derived from the project, the key and how many findings the
 * key already has, so two writers raising the same new problem at once write the same
 * row and it collapses into one finding. Within a process, raises of one key run in turn.
 */
export async function raiseFinding(storage: Storage, input: RaiseFindingInput): Promise<{ finding: Finding; created: boolean }> {
  return serialized(`${input.projectId}\u0000${input.dedupeKey}`, async () => {
    const seenAt = new Date(input.seenAtMs ?? Date.now()).toISOString();
    const occurrences = input.occurrences ?? 1;
    const evidence = [...new Set(input.evidence ?? [])];
    const existing = await selectFindings(
      storage,
      'project_id = {projectId:String} AND dedupe_key = {dedupeKey:String}',
      { projectId: input.projectId, dedupeKey: input.dedupeKey },
      'ORDER BY updated_at DESC, id',
    );
    const active = existing.find((f) => ACTIVE_STATUSES.includes(f.status));
    if (active) {
      const updated: Finding = {
        ...active,
        description: input.description,
        severity: higherSeverity(active.severity, input.severity),
        evidence: [...new Set([...evidence, ...active.evidence])].slice(0, MAX_EVIDENCE),
        lastSeen: seenAt > active.lastSeen ? seenAt : active.lastSeen,
        occurrences: active.occurrences + occurrences,
        updatedAt: new Date().toISOString(),
      };
      await writeFinding(storage, updated);
      return { finding: updated, created: false };
    }
    const id = `fnd_${createHash('sha256').update(`${input.projectId}\u0000${input.dedupeKey}\u0000${existing.length}`).digest('hex').slice(0, 24)}`;
    const now = new Date().toISOString();
    const finding: Finding = {
      id,
      projectId: input.projectId,
      dedupeKey: input.dedupeKey,
      title: input.title,
      description: input.description,
      severity: input.severity,
      status: 'open',
      investigator: input.investigator,
      asset: input.asset,
      assignee: null,
      evidence: evidence.slice(0, MAX_EVIDENCE),
      firstSeen: seenAt,
      lastSeen: seenAt,
      occurrences,
      riskAssessment: null,
      createdAt: now,
      updatedAt: now,
    };
    await writeFinding(storage, finding);
    return { finding, created: true };
  });
}

function higherSeverity(a: FindingSeverity, b: FindingSeverity): FindingSeverity {
  return FINDING_SEVERITIES.indexOf(a) >= FINDING_SEVERITIES.indexOf(b) ? a : b;
}

export class FindingMoveError extends Error {}

export interface FindingChange {
  at: string;
  actor: string;
  field: 'status' | 'assignee';
  from: string | null;
  to: string | null;
}

/**
 * Changes the status and/or the assignee (null: unassigned) of a finding, recording who
 * changed what. Returns null when the project has no such finding; throws
 * FindingMoveError for a move FINDING_MOVES does not allow.
 */
export async function updateFinding(
  storage: Storage,
  projectId: string,
  id: string,
  change: { status?: FindingStatus; assignee?: string | null },
  actor: string,
): Promise<Finding | null> {
  const current = await getFinding(storage, projectId, id);
  if (!current) return null;
  return serialized(`${projectId}\u0000${current.dedupeKey}`, async () => {
    const fresh = (await getFinding(storage, projectId, id))!;
    const changes: FindingChange[] = [];
    const now = new Date().toISOString();
    const next: Finding = { ...fresh, updatedAt: now };
    if (change.status !== undefined && change.status !== fresh.status) {
      if (!FINDING_MOVES[fresh.status].includes(change.status)) {
        throw new FindingMoveError(`a ${fresh.status} finding cannot become ${change.status}; allowed: ${FINDING_MOVES[fresh.status].join(', ')}`);
      }
      changes.push({ at: now, actor, field: 'status', from: fresh.status, to: change.status });
      next.status = change.status;
    }
    if (change.assignee !== undefined && change.assignee !== fresh.assignee) {
      changes.push({ at: now, actor, field: 'assignee', from: fresh.assignee, to: change.assignee });
      next.assignee = change.assignee;
    }
    if (changes.length === 0) return fresh;
    await writeFinding(storage, next);
    await storage.client.insert({
      table: 'finding_history',
      // Changes made together share their time; the index first in the id keeps their order.
      values: changes.map((c, i) => ({
        project_id: projectId,
        finding_id: id,
        at: msToDateTimeParam(Date.parse(c.at)),
        id: `${i}-${randomUUID()}`,
        actor: c.actor,
        field: c.field,
        from_value: c.from ?? '',
        to_value: c.to ?? '',
      })),
      format: 'JSONEachRow',
      ...named(storage, 'findings.history.write'),
    });
    return next;
  });
}

/** Stores a risk assessment with the finding (replacing an earlier one). */
export async function saveRiskAssessment(
  storage: Storage,
  finding: Finding,
  assessment: NonNullable<Finding['riskAssessment']>,
): Promise<Finding> {
  const next = { ...finding, riskAssessment: assessment, updatedAt: new Date().toISOString() };
  await writeFinding(storage, next);
  return next;
}

export async function getFinding(storage: Storage, projectId: string, id: string): Promise<Finding | null> {
  const [found] = await selectFindings(storage, 'project_id = {projectId:String} AND id = {id:String}', { projectId, id });
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

/** Findings of a query, most recently seen first, keyset-paginated on (lastSeen, id). */
export async function listFindings(
  storage: Storage,
  q: FindingQuery,
  page: { limit: number; before?: { lastSeenMs: number; id: string } },
): Promise<{ findings: Finding[]; next: { lastSeenMs: number; id: string } | null }> {
  const { condition, params } = findingConditions(q);
  let where = condition;
  if (page.before) {
    where += ' AND (last_seen, id) < ({beforeSeen:DateTime64(3)}, {beforeId:String})';
    params.beforeSeen = msToDateTimeParam(page.before.lastSeenMs);
    params.beforeId = page.before.id;
  }
  params.limit = page.limit + 1;
  const found = await selectFindings(storage, where, params, 'ORDER BY last_seen DESC, id DESC LIMIT {limit:UInt32}');
  const findings = found.slice(0, page.limit);
  const last = findings.at(-1);
  return { findings, next: found.length > page.limit && last ? { lastSeenMs: Date.parse(last.lastSeen), id: last.id } : null };
}

/** Counts of a query's findings per status and per severity (every value present, 0 when none). */
export async function countFindings(
  storage: Storage,
  q: FindingQuery,
): Promise<{ total: number; byStatus: Record<FindingStatus, number>; bySeverity: Record<FindingSeverity, number> }> {
  const { condition, params } = findingConditions(q);
  const result = await storage.client.query({
    query: `SELECT status, severity, count() AS n FROM findings FINAL WHERE ${condition} GROUP BY status, severity`,
    query_params: params,
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

async function selectFindings(storage: Storage, condition: string, params: Record<string, unknown>, tail = ''): Promise<Finding[]> {
  const result = await storage.client.query({
    query: `
      SELECT id, project_id, dedupe_key, title, description, severity, status, investigator_kind, investigator_id,
        asset_type, asset_id, assignee, evidence, toString(occurrences) AS occurrences, risk_assessment,
        toString(toUnixTimestamp64Milli(first_seen)) AS first_ms,
        toString(toUnixTimestamp64Milli(last_seen)) AS last_ms,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
      FROM findings FINAL
      WHERE ${condition}
      ${tail}`,
    query_params: params,
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

async function writeFinding(storage: Storage, f: Finding): Promise<void> {
  const time = (iso: string) => msToDateTimeParam(Date.parse(iso));
  await storage.client.insert({
    table: 'findings',
    values: [
      {
        id: f.id,
        project_id: f.projectId,
        dedupe_key: f.dedupeKey,
        title: f.title,
        description: f.description,
        severity: f.severity,
        status: f.status,
        investigator_kind: f.investigator.kind,
        investigator_id: f.investigator.id,
        asset_type: f.asset.type,
        asset_id: f.asset.id,
        assignee: f.assignee ?? '',
        evidence: f.evidence,
        first_seen: time(f.firstSeen),
        last_seen: time(f.lastSeen),
        occurrences: f.occurrences,
        risk_assessment: f.riskAssessment ? JSON.stringify(f.riskAssessment) : '',
        created_at: time(f.createdAt),
        updated_at: time(f.updatedAt),
        version: nextRowVersion(),
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'findings.write'),
  });
}
