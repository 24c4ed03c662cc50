/**
 * Reconciles reported token counts into the stored form: input includes cached
 * input (read and written), output includes reasoning, total is the explicit total
 * or input + output.
 *
 * Conventions disagree on whether sub-counts are included. OpenAI-style usage
 * includes them; Anthropic reports input without cache reads/writes, and Gemini
 * reports output without reasoning ("thoughts"). Heuristics, in order:
 *   1. cache read + cache write > input  → input excluded the cache: add it.
 *   2. reasoning > output                → output excluded reasoning: add it.
 *      A total equal to the reported input + output meant the same thing and gets the
 *      same additions.
 *   3. otherwise, when an explicit total disagrees with input + output, adding the
 *      cache and/or reasoning sub-counts is tried; the first sum that matches the
 *      total is taken as the reporter's meaning.
 * A total that no interpretation explains is kept as reported and flagged inconsistent,
 * as are negative counts (which are treated as 0).
 * A missing input (or output) with both of the other two known is derived from the total.
 */
import type { SpanFacts } from './conventions/facts.ts';

export interface TokenCounts {
  input: number;
  output: number;
  total: number;
  cachedInput: number;
  cacheWrite: number;
  reasoning: number;
  /** Any of input, output or total was reported. */
  known: boolean;
  inconsistent: boolean;
}

type Reported = Pick<
  SpanFacts,
  'inputTokens' | 'outputTokens' | 'totalTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens'
>;

/** Negative counts are treated as 0; fractional ones are rounded. */
function clean(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value < 0 ? 0 : Math.round(value);
}

function hasNegative(r: Reported): boolean {
  return (
    (r.inputTokens ?? 0) < 0 ||
    (r.outputTokens ?? 0) < 0 ||
    (r.totalTokens ?? 0) < 0 ||
    (r.cacheReadTokens ?? 0) < 0 ||
    (r.cacheWriteTokens ?? 0) < 0 ||
    (r.reasoningTokens ?? 0) < 0
  );
}

export function reconcileTokens(reported: Reported): TokenCounts {
  let inconsistent = hasNegative(reported);
  let total = clean(reported.totalTokens);
  let input = clean(reported.inputTokens);
  let output = clean(reported.outputTokens);
  const cachedInput = clean(reported.cacheReadTokens) ?? 0;
  const cacheWrite = clean(reported.cacheWriteTokens) ?? 0;
  const reasoning = clean(reported.reasoningTokens) ?? 0;
  const known = input !== undefined || output !== undefined || total !== undefined;

  if (input === undefined && output !== undefined && total !== undefined && total >= output) input = total - output;
  if (output === undefined && input !== undefined && total !== undefined && total >= input) output = total - input;
  input ??= 0;
  output ??= 0;

  const reportedSum = input + output;
  const cache = cachedInput + cacheWrite;
  let cacheAdded = false;
  let reasoningAdded = false;
  if (cache > input) {
    input += cache;
    cacheAdded = true;
  }
  if (reasoning > output) {
    output += reasoning;
    reasoningAdded = true;
  }
  // A total that matched the reported counts shared their meaning: move it along.
  if (total === reportedSum) total = input + output;
  if (total !== undefined && total !== input + output) {
    const extraCache = cacheAdded ? 0 : cache;
    const extraReasoning = reasoningAdded ? 0 : reasoning;
    if (extraCache > 0 && total === input + extraCache + output) {
      input += extraCache;
    } else if (extraReasoning > 0 && total === input + output + extraReasoning) {
      output += extraReasoning;
    } else if (extraCache > 0 && extraReasoning > 0 && total === input + extraCache + output + extraReasoning) {
      input += extraCache;
      output += extraReasoning;
    } else {
      inconsistent = true;
    }
  }
  return {
    input,
    output,
    total: total ?? input + output,
    cachedInput,
    cacheWrite,
    reasoning,
    known,
    inconsistent,
  };
}
