/**
 * Vercel AI SDK telemetry (`ai.*`, recognised by `ai.operationId`), v4 and v5 names.
 *
 * Span types: the provider calls (`*.doGenerate`, `*.doStream`) are `llm`, `*.doEmbed`
 * is `embedding`, `ai.toolCall` is `tool`. The top-level calls (`ai.generateText`,
 * `ai.streamText`, `ai.generateObject`, `ai.streamObject`, `ai.embed`, `ai.embedMany`)
 * are `chain`: they wrap one or more provider calls and report the usage summed over
 * those steps, so treating them as model calls would count tokens twice.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstNumber, firstText, textOf, toNumber } from '../attributes.ts';
import type { SpanFacts } from './facts.ts';

export const VERCEL_OPERATION_KEY = 'ai.operationId';

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
const TOOL_ARGUMENT_KEYS = ['ai.toolCall.args', 'ai.toolCall.input'];
const TOOL_RESULT_KEYS = ['ai.toolCall.result', 'ai.toolCall.output'];
const LLM_INPUT_KEYS = ['ai.prompt.messages', 'ai.prompt'];
const EMBED_INPUT_KEYS = ['ai.values', 'ai.value'];

/** "openai.chat" → "openai": the suffix names the provider's API, not the provider. */
function providerName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const dot = raw.indexOf('.');
  return (dot > 0 ? raw.slice(0, dot) : raw).toLowerCase();
}

/**
 * Text output plus tool calls. When a step produced both, keep both in one JSON
 * object rather than dropping the tool calls.
 */
function generationOutput(a: OtlpSpan['attributes']): string | undefined {
  const text = textOf(a, 'ai.response.text');
  const toolCalls = textOf(a, 'ai.response.toolCalls');
  const object = textOf(a, 'ai.response.object');
  if (toolCalls === undefined) return text ?? object;
  if (text === undefined) return toolCalls;
  let calls: unknown = toolCalls;
  try {
    calls = JSON.parse(toolCalls);
  } catch {
    // not JSON: keep the raw text
  }
  return JSON.stringify({ text, toolCalls: calls });
}

export function readVercelAi(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const operationId = a[VERCEL_OPERATION_KEY];
  if (typeof operationId !== 'string') return;
  const spanType = vercelSpanType(operationId);
  f.spanType ??= spanType;

  f.model ??= firstText(a, MODEL_KEYS);
  f.provider ??= providerName(textOf(a, 'ai.model.provider'));
  f.inputTokens ??= firstNumber(a, INPUT_TOKEN_KEYS) ?? (spanType === 'embedding' ? toNumber(a['ai.usage.tokens']) : undefined);
  f.outputTokens ??= firstNumber(a, OUTPUT_TOKEN_KEYS);
  f.totalTokens ??= toNumber(a['ai.usage.totalTokens']) ?? toNumber(a['ai.usage.tokens']);
  f.cacheReadTokens ??= toNumber(a['ai.usage.cachedInputTokens']);
  f.reasoningTokens ??= toNumber(a['ai.usage.reasoningTokens']);
  f.explicitCost ??= toNumber(a['ai.usage.cost']);

  if (spanType === 'tool') {
    const args = firstText(a, TOOL_ARGUMENT_KEYS);
    f.toolName ??= textOf(a, 'ai.toolCall.name');
    f.toolCallId ??= textOf(a, 'ai.toolCall.id');
    f.toolArguments ??= args;
    f.input ??= args;
    f.output ??= firstText(a, TOOL_RESULT_KEYS);
  } else if (spanType === 'embedding' || operationId === 'ai.embed' || operationId === 'ai.embedMany') {
    // The output (embedding vectors) stays in the attributes: numbers, not text.
    f.input ??= firstText(a, EMBED_INPUT_KEYS);
  } else {
    f.input ??= firstText(a, LLM_INPUT_KEYS);
    f.output ??= generationOutput(a);
  }

  f.sessionId ??= textOf(a, 'ai.telemetry.metadata.sessionId');
  f.userId ??= textOf(a, 'ai.telemetry.metadata.userId');
  // The SDK has no agent concept; functionId is the caller's name for this AI function.
  f.agentName ??= textOf(a, 'ai.telemetry.functionId');
}
