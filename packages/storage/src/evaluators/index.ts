/** Evaluators: definitions, the items a run or backfill judges, their context, backfills and score stats. */
export {
  createEvaluator,
  deleteEvaluator,
  getEvaluator,
  getEvaluatorApiKey,
  listAutoRunEvaluators,
  listEvaluators,
  updateEvaluator,
} from './definitions.ts';
export type { EvaluatorWrite, StoredEvaluator } from './definitions.ts';
export { countEvaluationItems, evaluationItemKey, listEvaluationItems } from './items.ts';
export type { EvaluationItem, EvaluationTarget, ItemSelection } from './items.ts';
export { loadEvaluationContext } from './context.ts';
export type { ContextSpan, ContextTrace, EvaluationContext } from './context.ts';
export {
  createBackfill,
  getBackfill,
  getBackfillProgress,
  judgedItemKeys,
  listBackfills,
  markBackfillCancelled,
  recordBackfillItems,
  writeBackfillProgress,
} from './backfills.ts';
export type { BackfillOutcome, BackfillProgress, BackfillRecord, BackfillStatus, JudgedItem } from './backfills.ts';
export { evaluatorScoreStats } from './stats.ts';
export type { EvaluatorStats, EvaluatorStatsBucket } from './stats.ts';
