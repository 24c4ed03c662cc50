import { listEvaluationItems, loadEvaluationContext, type ItemSelection, type StoredEvaluator, type Storage } from '@aos/storage';
import { definitionOf, judgeMessages } from './run.ts';

/** Items whose prompts are rendered to estimate the size of the others. */
const SAMPLE_ITEMS = 5;
/** A common rule of thumb for English text and code: about four characters per token. */
const CHARS_PER_TOKEN = 4;

export interface BackfillEstimate {
  items: number;
  /** Model judges: one call per item (retries not counted). */
  modelCalls: number;
  /** Prompt tokens, extrapolated from the prompts of the first items. */
  estimatedInputTokens: number;
  /** The most the replies can take: items × the evaluator's maxTokens. */
  maxOutputTokens: number;
}

/** What a backfill of `total` items costs: for checks no model call at all. */
export async function estimateBackfill(storage: Storage, evaluator: StoredEvaluator, selection: ItemSelection, total: number): Promise<BackfillEstimate> {
  const definition = definitionOf(evaluator);
  if (definition.kind === 'check' || total === 0) return { items: total, modelCalls: 0, estimatedInputTokens: 0, maxOutputTokens: 0 };
  const sample = await listEvaluationItems(storage, selection, { limit: SAMPLE_ITEMS });
  let chars = 0;
  let measured = 0;
  for (const item of sample.items) {
    const context = await loadEvaluationContext(storage, evaluator.projectId, item);
    if (!context) continue;
    chars += judgeMessages(definition, context).reduce((sum, m) => sum + m.content.length, 0);
    measured += 1;
  }
  const perItem = measured > 0 ? Math.ceil(chars / measured / CHARS_PER_TOKEN) : 0;
  return {
    items: total,
    modelCalls: total,
    estimatedInputTokens: perItem * total,
    maxOutputTokens: (definition.model?.maxTokens ?? 256) * total,
  };
}
