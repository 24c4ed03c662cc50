import { createHash, randomUUID } from 'node:crypto';
import {
  checkScoreAgainstConfig,
  existingSessions,
  existingSpans,
  existingTraces,
  findActiveScoreConfigs,
  findArchivedScoreConfigNames,
  findScores,
  knownDeployments,
  writeScoreVersions,
  type ApiKeyRecord,
  type ScoreConfig,
  type ScoreDataType,
  type ScoreRecord,
  type Storage,
} from '@aos/storage';
import { ApiError, type ErrorDetail } from '@aos/http';
import type { ScoreInput } from './score-input.ts';

/** An externalId names one score per key: the id is derived from it, so concurrent writes of it converge. */
export function scoreIdForExternalId(projectId: string, ownerKeyId: string, externalId: string): string {
  return `sc_${createHash('sha256').update(`${projectId}\u0000${ownerKeyId}\u0000${externalId}`).digest('hex').slice(0, 32)}`;
}

export function dataTypeOf(value: number | boolean | undefined): ScoreDataType {
  if (value === undefined) return 'categorical';
  return typeof value === 'boolean' ? 'boolean' : 'numeric';
}

/**
 * Adds or updates up to 100 scores whose shape was checked (scoreBatchProblems), all or
 * nothing: every score is checked against what is stored first (target, config, ownership),
 * and only when all pass are they written, in one insert. Otherwise a 422 lists each
 * failing score by index with its reason.
 */
export async function writeScores(storage: Storage, key: ApiKeyRecord, inputs: readonly ScoreInput[]): Promise<ScoreRecord[]> {
  const projectId = key.projectId;
  const ids = inputs.map((s) => s.id ?? (s.externalId ? scoreIdForExternalId(projectId, key.id, s.externalId) : undefined));
  const names = [...new Set(inputs.map((s) => s.name))];
  const [existing, activeConfigs, archivedNames] = await Promise.all([
    findScores(storage, projectId, ids.filter((id): id is string => id !== undefined)),
    findActiveScoreConfigs(storage, projectId, names),
    findArchivedScoreConfigNames(storage, projectId, names),
  ]);

  // The target of each score: its own, or for an update without one, the stored score's.
  const targets = inputs.map((s, i) => {
    const current = ids[i] ? existing.get(ids[i]!) : undefined;
    if (s.traceId !== undefined || s.sessionId !== undefined || !current) {
      return { traceId: s.traceId ?? null, spanId: s.spanId ?? null, sessionId: s.sessionId ?? null };
    }
    return { traceId: current.traceId, spanId: current.spanId, sessionId: current.sessionId };
  });
  const [traces, spans, sessions] = await Promise.all([
    existingTraces(storage, projectId, [...new Set(targets.flatMap((t) => (t.traceId ? [t.traceId] : [])))]),
    existingSpans(storage, projectId, targets.flatMap((t) => (t.traceId && t.spanId ? [{ traceId: t.traceId, spanId: t.spanId }] : []))),
    existingSessions(storage, projectId, [...new Set(targets.flatMap((t) => (t.sessionId ? [t.sessionId] : [])))]),
  ]);
  const deployments = await knownDeployments(
    storage,
    projectId,
    [...new Set(inputs.flatMap((s, i) => (s.deploymentId !== undefined && !traces.has(targets[i]!.traceId ?? '') ? [s.deploymentId] : [])))],
  );

  const now = new Date().toISOString();
  const problems: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  const records = inputs.map((input, index): ScoreRecord | null => {
    const fail = (message: string) => {
      problems.push({ field: `scores[${index}]`, message });
      return null;
    };
    const id = ids[index];
    const current = id ? existing.get(id) : undefined;
    if (input.id !== undefined) {
      if (!current) return fail(`no score with id ${input.id} in this project`);
      if (current.ownerKeyId !== key.id) return fail(`score ${input.id} belongs to another API key; only its owner may change it`);
    }
    if (id !== undefined) {
      const earlier = seen.get(id);
      if (earlier !== undefined) return fail(`scores[${earlier}] already writes this score (same id or externalId)`);
      seen.set(id, index);
    }
    const target = targets[index]!;
    if (current && (target.traceId !== current.traceId || target.spanId !== current.spanId || target.sessionId !== current.sessionId)) {
      return fail('an existing score keeps its target: leave traceId/spanId/sessionId out or send the same ones');
    }
    const targetProblem = checkTarget(target, input.deploymentId ?? current?.deploymentId ?? undefined, { traces, spans, sessions, deployments });
    if (targetProblem) return fail(targetProblem);
    const config = activeConfigs.get(input.name);
    if (!config && archivedNames.has(input.name)) return fail(`score config "${input.name}" is archived and takes no new scores`);
    const configProblem = config ? checkConfig(config, input) : null;
    if (configProblem) return fail(configProblem);
    return {
      id: id ?? `sc_${randomUUID().replaceAll('-', '')}`,
      projectId,
      traceId: target.traceId,
      spanId: target.spanId,
      sessionId: target.sessionId,
      name: input.name,
      dataType: dataTypeOf(input.value),
      value: input.value ?? null,
      stringValue: input.stringValue ?? null,
      comment: input.comment,
      source: input.source,
      externalId: input.externalId ?? current?.externalId ?? null,
      deploymentId: input.deploymentId ?? current?.deploymentId ?? null,
      configId: config?.id ?? null,
      ownerKeyId: key.id,
      evaluatorId: null,
      evaluatorVersion: null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
  });
  if (problems.length > 0) {
    throw new ApiError(
      'unprocessable',
      `${problems.length} of ${inputs.length} scores cannot be applied, so none was: ${problems[0]!.field}: ${problems[0]!.message}`,
      problems,
    );
  }
  const stored = records as ScoreRecord[];
  await writeScoreVersions(storage, stored);
  return stored;
}

interface KnownTargets {
  traces: Set<string>;
  spans: Set<string>;
  sessions: Set<string>;
  deployments: Set<number>;
}

function checkTarget(
  target: { traceId: string | null; spanId: string | null; sessionId: string | null },
  deploymentId: number | undefined,
  known: KnownTargets,
): string | null {
  if (target.sessionId !== null) {
    return known.sessions.has(target.sessionId) ? null : `session ${target.sessionId} not found in this project`;
  }
  const traceId = target.traceId!;
  if (known.traces.has(traceId)) {
    if (target.spanId && !known.spans.has(`${traceId}/${target.spanId}`)) return `span ${target.spanId} not found in trace ${traceId}`;
    return null;
  }
  // A trace that has not arrived yet: kept when a deployment of this project vouches for it.
  if (deploymentId === undefined) {
    return `trace ${traceId} not found; to score it before it arrives, send the deploymentId of the deployment that produces it`;
  }
  if (!known.deployments.has(deploymentId)) {
    return `deployment ${deploymentId} is not a deployment of this project (none of its spans named it in the deployment.id resource attribute)`;
  }
  return null;
}

function checkConfig(config: ScoreConfig, input: ScoreInput): string | null {
  const reason = checkScoreAgainstConfig(config, { value: input.value ?? null, stringValue: input.stringValue ?? null });
  return reason ? `does not fit score config "${config.name}": ${reason}` : null;
}
