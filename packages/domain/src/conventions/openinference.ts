/**
 * OpenInference (Arize Phoenix) conventions: `openinference.span.kind`, `llm.*`,
 * `input.value` / `output.value`, `tool.*`, `tool_call.*`, `session.id`, `user.id`.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstText, textOf, toNumber } from '../attributes.ts';
import type { SpanFacts } from './facts.ts';
import { indexedMessages, probeKeysOf, type IndexedListSpec } from './messages.ts';

export const OPENINFERENCE_KIND_KEY = 'openinference.span.kind';

/** UNKNOWN and PROMPT (template rendering) are left to the other rules. */
const KIND_SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  LLM: 'llm',
  CHAIN: 'chain',
  TOOL: 'tool',
  AGENT: 'agent',
  RETRIEVER: 'retrieval',
  EMBEDDING: 'embedding',
  RERANKER: 'reranker',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluator',
};

const TOOL_CALLS = {
  infix: '.message.tool_calls',
  fields: [['id', '.tool_call.id'], ['name', '.tool_call.function.name'], ['arguments', '.tool_call.function.arguments']],
} as const;
const INPUT_MESSAGES: IndexedListSpec = {
  prefix: 'llm.input_messages',
  fields: [['role', '.message.role'], ['content', '.message.content']],
  toolCalls: TOOL_CALLS,
};
const OUTPUT_MESSAGES: IndexedListSpec = {
  prefix: 'llm.output_messages',
  fields: [['role', '.message.role'], ['content', '.message.content']],
  toolCalls: TOOL_CALLS,
};
const INPUT_PROBES = probeKeysOf(INPUT_MESSAGES);
const OUTPUT_PROBES = probeKeysOf(OUTPUT_MESSAGES);

const PROVIDER_KEYS = ['llm.provider', 'llm.system'];

export function readOpenInference(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const kind = a[OPENINFERENCE_KIND_KEY];
  const spanType = typeof kind === 'string' ? KIND_SPAN_TYPES[kind.toUpperCase()] : undefined;
  f.spanType ??= spanType;

  f.model ??= textOf(a, 'llm.model_name');
  f.provider ??= firstText(a, PROVIDER_KEYS)?.toLowerCase();
  f.inputTokens ??= toNumber(a['llm.token_count.prompt']);
  f.outputTokens ??= toNumber(a['llm.token_count.completion']);
  f.totalTokens ??= toNumber(a['llm.token_count.total']);
  f.cacheReadTokens ??= toNumber(a['llm.token_count.prompt_details.cache_read']);
  f.cacheWriteTokens ??= toNumber(a['llm.token_count.prompt_details.cache_write']);
  f.reasoningTokens ??= toNumber(a['llm.token_count.completion_details.reasoning']);
  f.explicitCost ??= toNumber(a['llm.cost.total']);

  // input.value is what the span received (for LLM spans usually the whole request
  // JSON); the indexed messages are only a fallback when it was not recorded.
  const input = textOf(a, 'input.value');
  f.input ??= input ?? indexedMessages(a, INPUT_MESSAGES, INPUT_PROBES);
  f.output ??= textOf(a, 'output.value') ?? indexedMessages(a, OUTPUT_MESSAGES, OUTPUT_PROBES);

  f.toolName ??= textOf(a, 'tool.name');
  f.toolCallId ??= textOf(a, 'tool_call.id');
  // `tool.parameters` is the tool's JSON-schema definition, not the call's arguments,
  // so it is not used here; a TOOL span's arguments are its input.
  f.toolArguments ??= textOf(a, 'tool_call.function.arguments') ?? (spanType === 'tool' ? input : undefined);

  f.agentName ??= textOf(a, 'agent.name');
  f.sessionId ??= textOf(a, 'session.id');
  f.userId ??= textOf(a, 'user.id');
}
