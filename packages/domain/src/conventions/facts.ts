/**
 * What the instrumentation conventions say about one span, before reconciliation.
 *
 * Convention readers run in priority order and only fill fields that are still
 * undefined (`??=`), so the most specific convention wins field by field while a
 * later one can still contribute what the earlier one lacks (e.g. the Vercel AI SDK
 * reports tokens under `ai.usage.*` but cache details only arrive as `gen_ai.*`).
 */
import type { SpanType } from '../span-row.ts';

export interface SpanFacts {
  spanType: SpanType | undefined;
  /** The convention recognised on the span itself ('vercel-ai', 'openinference', ...). */
  platform: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  agentName: string | undefined;
  input: string | undefined;
  output: string | undefined;
  sessionId: string | undefined;
  userId: string | undefined;
  toolName: string | undefined;
  toolArguments: string | undefined;
  toolCallId: string | undefined;
  /** Token counts exactly as reported; tokens.ts reconciles them. */
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
  reasoningTokens: number | undefined;
  /** USD from an explicit cost attribute. */
  explicitCost: number | undefined;
}

/** All fields present from the start so every facts object has the same hidden class. */
export function emptyFacts(): SpanFacts {
  return {
    spanType: undefined,
    platform: undefined,
    model: undefined,
    provider: undefined,
    agentName: undefined,
    input: undefined,
    output: undefined,
    sessionId: undefined,
    userId: undefined,
    toolName: undefined,
    toolArguments: undefined,
    toolCallId: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    totalTokens: undefined,
    cacheReadTokens: undefined,
    cacheWriteTokens: undefined,
    reasoningTokens: undefined,
    explicitCost: undefined,
  };
}

export function hasTokenCounts(facts: SpanFacts): boolean {
  return facts.inputTokens !== undefined || facts.outputTokens !== undefined || facts.totalTokens !== undefined;
}
