import { listAutoRunEvaluators, listEvaluationItems, type EvaluationItem, type Storage, type StoredEvaluator } from '@aos/storage';
import { itemSelection } from './selection.ts';

/** How far back a completed trace may have started and still be judged automatically. */
const AUTO_RUN_LOOKBACK_MS = 366 * 24 * 60 * 60 * 1000;
/** Items judged automatically per evaluator and pass; more (a huge session burst) wait for a backfill. */
const MAX_AUTO_ITEMS = 5000;

export interface AutoRun {
  evaluator: StoredEvaluator;
  item: EvaluationItem;
}

/**
 * The judgements due when traces complete: for each evaluator of the project that runs
 * automatically, the items of those traces that pass its filter and sampling (the traces
 * themselves, their matching spans, or their sessions).
 */
export async function autoRunsForCompletedTraces(storage: Storage, projectId: string, traceIds: string[], now = Date.now()): Promise<AutoRun[]> {
  if (traceIds.length === 0) return [];
  const evaluators = await listAutoRunEvaluators(storage, [projectId]);
  const runs: AutoRun[] = [];
  for (const evaluator of evaluators) {
    const selection = itemSelection(evaluator, { startMs: now - AUTO_RUN_LOOKBACK_MS, endMs: now + 24 * 60 * 60 * 1000 }, traceIds);
    const page = await listEvaluationItems(storage, selection, { limit: MAX_AUTO_ITEMS });
    for (const item of page.items) runs.push({ evaluator, item });
  }
  return runs;
}
