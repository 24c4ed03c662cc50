/**
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`), including the older
 * names still emitted by many instrumentations (prompt_tokens, indexed
 * gen_ai.prompt.N.*, per-message events). OpenLLMetry and the Vercel AI SDK also
 * write these keys, so this reader runs after theirs and fills what they left open.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstNumber, firstText, lowerText, textOf, toNumber } from '../attributes.ts';
import type { SpanFacts } from './facts.ts';
import { indexedMessages, messagesFromEvents, probeKeysOf, withSystemInstructions, type IndexedListSpec } from './messages.ts';

const OPERATION_SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
};

/** Keys whose presence marks a span as GenAI-semconv instrumented. */
export const GENAI_MARKER_KEYS = ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.system', 'gen_ai.request.model'];

// The response model is the one actually served (often dated), so it wins for pricing.
// llm.request/response.model are pre-2024 OpenLLMetry names.
const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.response.model', 'llm.request.model'];
const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system'];
const INPUT_TOKEN_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'];
const OUTPUT_TOKEN_KEYS = ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'];
const TOTAL_TOKEN_KEYS = ['gen_ai.usage.total_tokens', 'llm.usage.total_tokens'];
const CACHE_READ_KEYS = [
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'gen_ai.usage.input_tokens.cached',
];
const CACHE_WRITE_KEYS = [
  'gen_ai.usage.cache_creation.input_tokens',
  'gen_ai.usage.cache_creation_input_tokens',
  'gen_ai.usage.input_tokens.cache_write',
];
const REASONING_KEYS = [
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.output_tokens.reasoning',
  'gen_ai.usage.reasoning_tokens',
];

const PROMPTS: IndexedListSpec = {
  prefix: 'gen_ai.prompt',
  fields: [['role', '.role'], ['content', '.content']],
};
const COMPLETIONS: IndexedListSpec = {
  prefix: 'gen_ai.completion',
  fields: [['role', '.role'], ['content', '.content'], ['finish_reason', '.finish_reason']],
  toolCalls: { infix: '.tool_calls', fields: [['id', '.id'], ['name', '.name'], ['arguments', '.arguments']] },
};
const PROMPT_PROBES = probeKeysOf(PROMPTS);
const COMPLETION_PROBES = probeKeysOf(COMPLETIONS);

export function readGenAi(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const operation = lowerText(a, 'gen_ai.operation.name');
  if (operation !== undefined) f.spanType ??= OPERATION_SPAN_TYPES[operation];

  f.model ??= firstText(a, MODEL_KEYS);
  f.provider ??= firstText(a, PROVIDER_KEYS)?.toLowerCase();
  f.agentName ??= textOf(a, 'gen_ai.agent.name');
  f.sessionId ??= textOf(a, 'gen_ai.conversation.id');

  f.inputTokens ??= firstNumber(a, INPUT_TOKEN_KEYS);
  f.outputTokens ??= firstNumber(a, OUTPUT_TOKEN_KEYS);
  f.totalTokens ??= firstNumber(a, TOTAL_TOKEN_KEYS);
  f.cacheReadTokens ??= firstNumber(a, CACHE_READ_KEYS);
  f.cacheWriteTokens ??= firstNumber(a, CACHE_WRITE_KEYS);
  f.reasoningTokens ??= firstNumber(a, REASONING_KEYS);
  f.explicitCost ??= toNumber(a['gen_ai.usage.cost']);

  f.toolName ??= textOf(a, 'gen_ai.tool.name');
  f.toolCallId ??= textOf(a, 'gen_ai.tool.call.id');
  const toolArguments = textOf(a, 'gen_ai.tool.call.arguments');
  f.toolArguments ??= toolArguments;

  if (operation === 'execute_tool') {
    f.input ??= toolArguments;
    f.output ??= textOf(a, 'gen_ai.tool.call.result');
  }
  if (f.input === undefined) {
    const messages = textOf(a, 'gen_ai.input.messages');
    const instructions = textOf(a, 'gen_ai.system_instructions');
    f.input = withSystemInstructions(messages, instructions) ?? indexedMessages(a, PROMPTS, PROMPT_PROBES);
  }
  f.output ??= textOf(a, 'gen_ai.output.messages') ?? indexedMessages(a, COMPLETIONS, COMPLETION_PROBES);

  // Events are the last resort; only walk them when something is still missing.
  if ((f.input === undefined || f.output === undefined) && span.events.length > 0) {
    const fromEvents = messagesFromEvents(span.events);
    f.input ??= fromEvents.input;
    f.output ??= fromEvents.output;
  }
}
