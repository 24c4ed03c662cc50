/**
 * Vercel AI SDK telemetry (`ai.*`): v4 to v6, and v7's legacy integration; recognised by
 * `ai.operationId` or by the SDK's tracer scope `ai`. (v7's default integration writes
 * GenAI semconv under scope `gen_ai`, read by genai.ts; its runtime context comes as
 * `ai.settings.context.*` and its token details as `ai.usage.*TokenDetails.*`, read here
 * for every span.)
 *
 * Span types: the provider calls (`*.doGenerate`, `*.doStream`) are `llm`, `*.doEmbed`
 * is `embedding`, `ai.toolCall` is `tool`. The top-level calls (`ai.generateText`,
 * `ai.streamText`, `ai.generateObject`, `ai.streamObject`, `ai.embed`, `ai.embedMany`)
 * are `chain`: they wrap one or more provider calls and report the usage summed over
 * those steps, so treating them as model calls would count tokens twice.
 *
 * Messages: `ai.prompt.messages` (the provider prompt of one step) or `ai.prompt`
 * (`{"system","prompt","messages"}` of the whole call) in; `ai.response.text`,
 * `ai.response.reasoning`, `ai.response.toolCalls` and `ai.response.object` out.
 */
import type { Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstNumber, firstText, textOf, toNumber } from '../attributes.ts';
import { conversationOf, toolCallsOf } from '../messages/bodies.ts';
import { attributeJson, parseJsonText, unquoteJson } from '../messages/json.ts';
import { message, textPart, type ChatMessage, type MessagePart } from '../messages/model.ts';
import { isObject } from '../messages/parts.ts';
import { normalizeProvider } from '../model-provider.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

export const VERCEL_OPERATION_KEY = 'ai.operationId';
export const VERCEL_SCOPE = 'ai';

const TOP_LEVEL_OPERATIONS = new Set([
  'ai.generateText',
  'ai.streamText',
  'ai.generateObject',
  'ai.streamObject',
  'ai.embed',
  'ai.embedMany',
]);

export function vercelSpanType(operationId: string): SpanType | undefined {
  if (operationId.endsWith('.doGenerate') || operationId.endsWith('.doStream')) return 'llm';
  if (operationId.endsWith('.doEmbed')) return 'embedding';
  if (operationId === 'ai.toolCall') return 'tool';
  if (TOP_LEVEL_OPERATIONS.has(operationId)) return 'chain';
  return undefined;
}

const MODEL_KEYS = ['ai.response.model', 'ai.model.id'];
const INPUT_TOKEN_KEYS = ['ai.usage.inputTokens', 'ai.usage.promptTokens'];
const OUTPUT_TOKEN_KEYS = ['ai.usage.outputTokens', 'ai.usage.completionTokens'];
const CACHE_READ_KEYS = ['ai.usage.inputTokenDetails.cacheReadTokens', 'ai.usage.cachedInputTokens'];
const CACHE_WRITE_KEYS = ['ai.usage.inputTokenDetails.cacheWriteTokens'];
const REASONING_KEYS = ['ai.usage.outputTokenDetails.reasoningTokens', 'ai.usage.reasoningTokens'];
const TOOL_ARGUMENT_KEYS = ['ai.toolCall.args', 'ai.toolCall.input'];
const TOOL_RESULT_KEYS = ['ai.toolCall.result', 'ai.toolCall.output'];
/** Session and user from telemetry metadata (v4–v6) or runtime context (v7). */
const SESSION_KEYS = [
  'ai.telemetry.metadata.sessionId',
  'ai.telemetry.metadata.session_id',
  'ai.telemetry.metadata.threadId',
  'ai.settings.context.sessionId',
  'ai.settings.context.session_id',
  'ai.settings.context.threadId',
];
const USER_KEYS = [
  'ai.telemetry.metadata.userId',
  'ai.telemetry.metadata.user_id',
  'ai.settings.context.userId',
  'ai.settings.context.user_id',
];

/**
 * Cache tokens a provider reports only in its metadata (`ai.response.providerMetadata`):
 * Anthropic (`cacheCreationInputTokens`, `usage.cache_read_input_tokens`), Bedrock
 * (`usage.cacheReadInputTokens` / `cacheWriteInputTokens`), OpenAI (`cachedPromptTokens`).
 */
export function providerMetadataCache(text: string | undefined): { read: number | undefined; write: number | undefined } {
  const out = { read: undefined as number | undefined, write: undefined as number | undefined };
  const metadata = text === undefined ? undefined : parseJsonText(text);
  if (!isObject(metadata)) return out;
  for (const provider of Object.values(metadata)) {
    if (!isObject(provider)) continue;
    const usage = isObject(provider['usage']) ? provider['usage'] : {};
    out.read ??= numberOf(usage['cache_read_input_tokens'] ?? usage['cacheReadInputTokens'] ?? provider['cachedPromptTokens'] ?? provider['cacheReadInputTokens']);
    out.write ??= numberOf(provider['cacheCreationInputTokens'] ?? usage['cache_creation_input_tokens'] ?? usage['cacheWriteInputTokens']);
  }
  return out;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The step's or call's answer as one assistant message. */
function responseMessage(a: Attributes): ChatMessage[] | undefined {
  const parts: MessagePart[] = [];
  const reasoning = textOf(a, 'ai.response.reasoning');
  if (reasoning !== undefined) parts.push({ type: 'reasoning', content: reasoning });
  const text = textOf(a, 'ai.response.text') ?? textOf(a, 'ai.response.object');
  if (text !== undefined) parts.push(textPart(text));
  parts.push(...toolCallsOf(attributeJson(a['ai.response.toolCalls'])));
  if (parts.length === 0) return undefined;
  const m = message('assistant', parts);
  const finish = textOf(a, 'ai.response.finishReason');
  if (finish !== undefined) m.finish_reason = finish;
  return [m];
}

/** Embedding inputs: each value is JSON text (`"\"hello\""`); one per line. */
function embeddingInput(a: Attributes): string | undefined {
  const values = a['ai.values'];
  if (Array.isArray(values)) return values.map((v) => (typeof v === 'string' ? unquoteJson(v) : JSON.stringify(v))).join('\n');
  const value = textOf(a, 'ai.value') ?? textOf(a, 'ai.values');
  return value === undefined ? undefined : unquoteJson(value);
}

function operationOf(span: OtlpSpan, scopeName: string): string | undefined {
  const operationId = span.attributes[VERCEL_OPERATION_KEY];
  if (typeof operationId === 'string') return operationId;
  return scopeName === VERCEL_SCOPE && span.name.startsWith('ai.') ? span.name : undefined;
}

// Runs only on spans with `ai.*` keys or the scope `ai` (key-families.ts): a key read here must be of those families.
export function readVercelAi(span: OtlpSpan, f: SpanFacts, scopeName: string): void {
  const a = span.attributes;
  f.sessionId ??= firstText(a, SESSION_KEYS);
  f.userId ??= firstText(a, USER_KEYS);
  // v7's OpenTelemetry integration writes GenAI semconv, and its token details only here.
  f.cacheReadTokens ??= firstNumber(a, CACHE_READ_KEYS);
  f.cacheWriteTokens ??= firstNumber(a, CACHE_WRITE_KEYS);
  f.reasoningTokens ??= firstNumber(a, REASONING_KEYS);
  const operationId = operationOf(span, scopeName);
  if (operationId === undefined) return;
  const spanType = vercelSpanType(operationId);
  f.spanType ??= spanType;

  f.model ??= firstText(a, MODEL_KEYS);
  f.provider ??= normalizeProvider(textOf(a, 'ai.model.provider'));
  f.inputTokens ??= firstNumber(a, INPUT_TOKEN_KEYS) ?? (spanType === 'embedding' ? toNumber(a['ai.usage.tokens']) : undefined);
  f.outputTokens ??= firstNumber(a, OUTPUT_TOKEN_KEYS);
  f.totalTokens ??= toNumber(a['ai.usage.totalTokens']) ?? toNumber(a['ai.usage.tokens']);
  f.explicitCost ??= toNumber(a['ai.usage.cost']);
  if (f.cacheReadTokens === undefined && a['ai.response.providerMetadata'] !== undefined) {
    const cache = providerMetadataCache(textOf(a, 'ai.response.providerMetadata'));
    f.cacheReadTokens = cache.read;
    f.cacheWriteTokens ??= cache.write;
  }

  if (spanType === 'tool') {
    const args = firstText(a, TOOL_ARGUMENT_KEYS);
    f.toolName ??= textOf(a, 'ai.toolCall.name');
    f.toolCallId ??= textOf(a, 'ai.toolCall.id');
    f.toolArguments ??= args;
    takeInputText(f, args);
    const result = firstText(a, TOOL_RESULT_KEYS);
    takeOutputText(f, result === undefined ? undefined : unquoteJson(result));
  } else if (spanType === 'embedding' || operationId === 'ai.embed' || operationId === 'ai.embedMany') {
    // The output (embedding vectors) stays in the attributes: numbers, not text.
    takeInputText(f, embeddingInput(a));
  } else {
    const promptKey = a['ai.prompt.messages'] !== undefined ? 'ai.prompt.messages' : 'ai.prompt';
    const prompt = attributeJson(a[promptKey]);
    const conversation = prompt === undefined ? undefined : conversationOf(prompt, 'input');
    if (conversation !== undefined) takeInput(f, conversation);
    else takeInputText(f, textOf(a, promptKey));
    takeOutput(f, responseMessage(a));
  }

  // The SDK has no agent concept; functionId is the caller's name for this AI function.
  f.agentName ??= textOf(a, 'ai.telemetry.functionId');
}
