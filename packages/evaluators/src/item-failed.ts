import type { Logger } from '@aos/log';
import { raiseFinding, type EvaluationItem, type ScoreRecord, type Storage } from '@aos/storage';
import type { CheckSpec } from './checks.ts';

/** An item an evaluator could not judge, and why. */
export interface EvaluatorItemFailure {
  projectId: string;
  evaluatorId: string;
  evaluatorVersion: number;
  evaluatorName: string;
  item: EvaluationItem;
  reason: string;
  /** Where the run came from. */
  origin: 'run' | 'auto' | 'backfill';
  /** Set for backfill items. */
  backfillId?: string;
}

/** The item as evidence: a trace id, `traceId/spanId`, or the session id. */
function evidenceOf(item: EvaluationItem): string[] {
  if (item.traceId && item.spanId) return [`${item.traceId}/${item.spanId}`];
  return [item.traceId ?? item.sessionId ?? ''].filter(Boolean);
}

/**
 * Called once for every item an evaluator failed to judge (unreadable reply, model
 * endpoint down after its retries, missing item, score config refusing the score): one
 * finding per evaluator (`evaluator:<id>:errors`) gathers them, as a broken judge is
 * itself a problem to look into.
 */
export async function onEvaluatorItemFailed(storage: Storage, failure: EvaluatorItemFailure, logger: Logger): Promise<void> {
  logger.warn('evaluator could not judge an item', { ...failure });
  await raiseFinding(storage, {
    projectId: failure.projectId,
    dedupeKey: `evaluator:${failure.evaluatorId}:errors`,
    title: `Evaluator "${failure.evaluatorName}" cannot judge items`,
    description: `Latest (version ${failure.evaluatorVersion}, ${failure.origin}): ${failure.reason}`,
    severity: 'medium',
    investigator: { kind: 'evaluator', id: failure.evaluatorId },
    asset: { type: 'evaluator', id: failure.evaluatorId },
    evidence: evidenceOf(failure.item),
  }).catch((err: unknown) => logger.warn('cannot raise an evaluator finding', { evaluatorId: failure.evaluatorId, error: err }));
}

/** Checks whose `true` is the problem (an empty output, personal data found); for the others `false` is. */
const TRUE_IS_FAILING: ReadonlySet<CheckSpec['type']> = new Set(['empty_output', 'pii']);

/**
 * Called for every score an evaluator wrote. A check's failing verdict (a pattern not
 * matched, a threshold exceeded, personal data found…) means the item failed the
 * evaluation: one finding per evaluator (`evaluator:<id>:failed`) collects those items.
 * Model judges and numeric checks carry no pass mark of their own, so they raise nothing;
 * a monitor on `score_mean` covers them.
 */
export async function onEvaluatorScored(
  storage: Storage,
  evaluator: { projectId: string; id: string; name: string },
  check: CheckSpec | null,
  item: EvaluationItem,
  score: ScoreRecord,
  logger: Logger,
): Promise<void> {
  if (!check || score.dataType !== 'boolean' || score.value === null) return;
  const verdict = score.value === true || score.value === 1;
  if (verdict !== TRUE_IS_FAILING.has(check.type)) return;
  await raiseFinding(storage, {
    projectId: evaluator.projectId,
    dedupeKey: `evaluator:${evaluator.id}:failed`,
    title: `Items failing evaluator "${evaluator.name}"`,
    description: score.comment ? `Latest: ${score.comment.slice(0, 500)}` : `Latest score "${score.name}": ${String(score.value)}.`,
    severity: 'medium',
    investigator: { kind: 'evaluator', id: evaluator.id },
    asset: { type: 'evaluator', id: evaluator.id },
    evidence: evidenceOf(item),
  }).catch((err: unknown) => logger.warn('cannot raise an evaluator finding', { evaluatorId: evaluator.id, error: err }));
}
