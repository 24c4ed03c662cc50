/**
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`, now semantic-conventions-genai),
 * including the older names still emitted by many instrumentations (prompt_tokens, indexed
 * gen_ai.prompt.N.*, flat gen_ai.prompt / gen_ai.completion, per-message events).
 * OpenLLMetry, Mastra and the Vercel AI SDK also write these keys, so this reader runs after
 * theirs and fills what they left open.
 */
import type { AttributeValue, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstNumber, firstText, lowerText, textOf, toNumber } from '../attributes.ts';
import { normalizeProvider } from '../model-provider.ts';
import { conversationFromEvents, GENAI_MESSAGE_EVENTS } from '../messages/events.ts';
import { indexedMessages, readIndexedMessages } from '../messages/indexed.ts';
import { attributeJson, messageListAttribute, systemInstructionsAttribute, textConversation, unquoteJson } from '../messages/json.ts';
import { GENAI_PROMPT_KEYS, GENAI_USAGE_KEYS, keyFamilies, LLM_KEYS } from './key-families.ts';
import { hasInput, hasOutput, takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

/**
 * `invoke_workflow` is folded into `invoke_agent` by semantic-conventions-genai 0.1; a
 * memory search retrieves. Operations writing memory have no span type of their own.
 */
const OPERATION_SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  invoke_workflow: 'agent',
  retrieval: 'retrieval',
  search_memory: 'retrieval',
  rerank: 'reranker',
  plan: 'chain',
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
  'gen_ai.usage.cached_input_tokens', // Mastra 0.x
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

const PROMPTS = indexedMessages({
  prefix: 'gen_ai.prompt',
  message: '',
  toolCall: { id: '.id', name: '.name', arguments: '.arguments' },
  defaultRole: 'user',
});
const COMPLETIONS = indexedMessages({
  prefix: 'gen_ai.completion',
  message: '',
  toolCall: { id: '.id', name: '.name', arguments: '.arguments' },
  defaultRole: 'assistant',
});

/** Finish reasons arrive as a string array, or as its JSON text (Mastra). */
function finishedWithError(value: AttributeValue | undefined): boolean {
  if (value === undefined) return false;
  const reasons = typeof value === 'string' ? (attributeJson(value) ?? value) : value;
  return reasons === 'error' || (Array.isArray(reasons) && reasons.includes('error'));
}

function hasMessageEvents(span: OtlpSpan): boolean {
  for (const event of span.events) if (GENAI_MESSAGE_EVENTS.has(event.name)) return true;
  return false;
}

/**
 * Strands Agents' default conventions send a tool's arguments as the `gen_ai.tool.message`
 * event of its `execute_tool` span (`content`: the arguments' JSON); its answer is the
 * span's `gen_ai.choice`, read with the other events.
 */
function eventToolArguments(span: OtlpSpan): string | undefined {
  for (const event of span.events) if (event.name === 'gen_ai.tool.message') return textOf(event.attributes, 'content');
  return undefined;
}

function readMessages(span: OtlpSpan, f: SpanFacts, families: number): void {
  const a = span.attributes;
  const system = systemInstructionsAttribute(a['gen_ai.system_instructions']);
  if (system !== undefined && f.systemInstructions === undefined) {
    f.systemInstructions = system.list;
    f.systemInstructionsSource = system.source;
  }
  if (!hasInput(f)) {
    const input = messageListAttribute(a['gen_ai.input.messages'], 'input');
    // Not a message list (plain text sent where JSON belongs): read as the user's text.
    takeInput(f, input?.list ?? textConversation(a['gen_ai.input.messages'], 'input'), input?.source);
  }
  // The older keys (gen_ai.prompt*, gen_ai.completion*) are looked up only on spans that have some.
  const older = (families & GENAI_PROMPT_KEYS) !== 0;
  if (older && !hasInput(f)) {
    const prompts = readIndexedMessages(a, PROMPTS);
    takeInput(f, prompts && { messages: prompts });
  }
  if (older && !hasInput(f)) takeInput(f, textConversation(a['gen_ai.prompt'], 'input'));
  if (!hasOutput(f)) {
    const output = messageListAttribute(a['gen_ai.output.messages'], 'output');
    takeOutput(f, output?.list.messages ?? textConversation(a['gen_ai.output.messages'], 'output')?.messages, output?.source);
  }
  if (older && !hasOutput(f)) takeOutput(f, readIndexedMessages(a, COMPLETIONS));
  if (older && !hasOutput(f)) takeOutput(f, textConversation(a['gen_ai.completion'], 'output')?.messages);
  // Events are the last resort; only walk them when something is still missing.
  if ((!hasInput(f) || !hasOutput(f) || f.systemInstructions === undefined) && hasMessageEvents(span)) {
    const fromEvents = conversationFromEvents(span.events);
    f.systemInstructions ??= fromEvents.system;
    takeInput(f, fromEvents.input && { messages: fromEvents.input });
    takeOutput(f, fromEvents.output);
  }
}

/** `families`: the span's key families (key-families.ts); blocks of keys the span has none of are not looked up. */
export function readGenAi(span: OtlpSpan, f: SpanFacts, families = keyFamilies(span.attributes)): void {
  const a = span.attributes;
  const operation = lowerText(a, 'gen_ai.operation.name');
  if (operation !== undefined) f.spanType ??= OPERATION_SPAN_TYPES[operation];

  f.model ??= firstText(a, MODEL_KEYS);
  f.provider ??= normalizeProvider(firstText(a, PROVIDER_KEYS));
  f.agentName ??= textOf(a, 'gen_ai.agent.name');
  f.sessionId ??= textOf(a, 'gen_ai.conversation.id');

  if (families & GENAI_USAGE_KEYS) {
    f.inputTokens ??= firstNumber(a, INPUT_TOKEN_KEYS);
    f.outputTokens ??= firstNumber(a, OUTPUT_TOKEN_KEYS);
    f.cacheReadTokens ??= firstNumber(a, CACHE_READ_KEYS);
    f.cacheWriteTokens ??= firstNumber(a, CACHE_WRITE_KEYS);
    f.reasoningTokens ??= firstNumber(a, REASONING_KEYS);
    f.explicitCost ??= toNumber(a['gen_ai.usage.cost']);
  }
  if (families & (GENAI_USAGE_KEYS | LLM_KEYS)) f.totalTokens ??= firstNumber(a, TOTAL_TOKEN_KEYS);

  f.failed ||= finishedWithError(a['gen_ai.response.finish_reasons']);

  f.toolName ??= textOf(a, 'gen_ai.tool.name');
  f.toolCallId ??= textOf(a, 'gen_ai.tool.call.id');
  const toolArguments = textOf(a, 'gen_ai.tool.call.arguments') ?? (operation === 'execute_tool' ? eventToolArguments(span) : undefined);
  f.toolArguments ??= toolArguments;

  if (operation === 'execute_tool') {
    takeInputText(f, toolArguments);
    const result = textOf(a, 'gen_ai.tool.call.result');
    takeOutputText(f, result === undefined ? undefined : unquoteJson(result));
  }
  readMessages(span, f, families);
}
