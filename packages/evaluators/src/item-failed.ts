import type { Logger } from '@aos/log';
import type { EvaluationItem } from '@aos/storage';

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

/**
 * Called once for every item an evaluator failed to judge (unreadable reply, model
 * endpoint down after its retries, missing item, score config refusing the score).
 * Findings (issue 6) raise a finding from here; until then the failure is logged.
 */
export async function onEvaluatorItemFailed(failure: EvaluatorItemFailure, logger: Logger): Promise<void> {
  logger.warn('evaluator could not judge an item', { ...failure });
}
