import { createHash, randomUUID } from 'node:crypto';
import { FINDING_SEVERITIES, type FindingSeverity } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { keyedSerializer } from '../sql/keyed-serializer.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { named } from '../sql/query-name.ts';
import { FINDING_MOVES, type Finding, type FindingChange, type FindingStatus } from './finding.ts';
import { findingsSql, getFinding, selectFindings } from './read.ts';

/**
 * Findings recorded: `raiseFinding` is the one way to record a detection (repeated
 * detections of one problem update the open finding instead of adding another); status,
 * assignee and risk assessment changes write a new version of the row, and status and
 * assignee changes also leave a history row.
 */

const ACTIVE_STATUSES: readonly FindingStatus[] = ['open', 'investigating'];
/** Evidence ids kept per finding, newest first. */
export const MAX_EVIDENCE = 100;

/** A detection: what the finding it raises or updates is about, and how often it was seen. */
export interface RaiseFindingInput extends Pick<Finding, 'projectId' | 'title' | 'description' | 'severity' | 'investigator' | 'asset'> {
  /**
   * Names "the same problem": detections with one key update one open finding. Build it
   * from investigator, rule and asset, e.g. `monitor:<id>:<group>`, `trace_flag:loop`,
   * `evaluator:<id>:trace:<traceId>`, `masking:<rule>:trace:<traceId>`.
   */
  dedupeKey: string;
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
      findingsSql(
        'project_id = {projectId:String} AND dedupe_key = {dedupeKey:String}',
        { projectId: input.projectId, dedupeKey: input.dedupeKey },
        'ORDER BY updated_at DESC, id',
      ),
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
