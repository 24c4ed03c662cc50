/** @aos/evaluators: automatic judges (model judges and deterministic checks), their runs and backfills. */
export { TEMPLATES } from './templates.ts';
export type { CheckTemplate, EvaluatorTemplate, ModelTemplate } from './templates.ts';
export { VARIABLES } from './variables.ts';
export type { VariableDefinition } from './variables.ts';
export {
  evaluatorInputSchema,
  evaluatorPatchSchema,
  inputOfStored,
  mergePatch,
  resolveEvaluator,
} from './definition.ts';
export type { EvaluatorDefinition, EvaluatorInput, EvaluatorPatch, Problem, Resolved, TraceFilterFields } from './definition.ts';
export { KeyedLimiter } from './limiter.ts';
export { definitionOf, judgeItem } from './run.ts';
export type { EvaluatorRuntime, RunOutcome } from './run.ts';
export { itemSelection } from './selection.ts';
export { estimateBackfill } from './estimate.ts';
export type { BackfillEstimate } from './estimate.ts';
export { BackfillInterrupted, failBackfill, runBackfillChunk } from './backfill.ts';
export type { ChunkResult } from './backfill.ts';
export { autoRunsForCompletedTraces } from './auto-run.ts';
export type { AutoRun } from './auto-run.ts';
export { onEvaluatorItemFailed } from './item-failed.ts';
export type { EvaluatorItemFailure } from './item-failed.ts';
