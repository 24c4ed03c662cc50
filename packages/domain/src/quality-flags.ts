/** The per-span data-quality flags (SPAN_QUALITY_FLAGS), in their declared order. */
import type { SpanQualityFlag, SpanType } from './span-row.ts';

/** Clock skew tolerated before a start time counts as in the future. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export interface QualityInputs {
  startMs: number;
  receivedAtMs: number;
  truncated: boolean;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  spanType: SpanType;
  hasTokenCounts: boolean;
  hasModel: boolean;
  unknownPrice: boolean;
  inconsistentTokens: boolean;
}

export function qualityFlags(q: QualityInputs): SpanQualityFlag[] {
  const flags: SpanQualityFlag[] = [];
  if (q.startMs > q.receivedAtMs + FUTURE_TOLERANCE_MS) flags.push('future_timestamp');
  if (q.truncated) flags.push('attribute_truncated');
  // OtlpSpan carries no dropped-links count, so dropped links cannot be seen here.
  if (q.droppedAttributesCount > 0 || q.droppedEventsCount > 0) flags.push('data_dropped');
  if (q.spanType === 'llm' && !q.hasTokenCounts) flags.push('missing_token_counts');
  if (q.spanType === 'llm' && !q.hasModel) flags.push('missing_model');
  if (q.unknownPrice) flags.push('unknown_model_price');
  if (q.inconsistentTokens) flags.push('inconsistent_token_counts');
  return flags;
}
