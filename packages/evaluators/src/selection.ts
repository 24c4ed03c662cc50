import type { ItemSelection, StoredEvaluator } from '@aos/storage';
import { definitionOf } from './run.ts';

/** The items of an evaluator in a window (trace start), through its filter and sampling rate. */
export function itemSelection(evaluator: StoredEvaluator, window: { startMs: number; endMs: number }, traceIds?: string[]): ItemSelection {
  const definition = definitionOf(evaluator);
  return {
    target: definition.target,
    filter: {
      ...definition.traceFilter,
      projectId: evaluator.projectId,
      startTimeMs: window.startMs,
      endTimeMs: window.endMs,
      ...(traceIds ? { traceIds } : {}),
    },
    ...(definition.target === 'span' ? { spanFilter: definition.spanFilterFields } : {}),
    sampling: { evaluatorId: evaluator.id, rate: definition.samplingRate },
  };
}
