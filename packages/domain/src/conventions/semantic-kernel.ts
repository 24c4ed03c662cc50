/**
 * Semantic Kernel (.NET `Microsoft.SemanticKernel.*` activity sources, Python
 * `semantic_kernel.*` tracers): model calls are GenAI semconv spans (`chat.completions
 * {model}`, `invoke_agent {name}`) whose messages are events (`gen_ai.user.message`…,
 * `gen_ai.choice`) carrying the message as JSON in `gen_ai.event.content` — read by
 * genai.ts. This reader adds what only Semantic Kernel says: the token counts of its
 * first telemetry (`gen_ai.response.prompt_tokens` / `completion_tokens`, -1 when the
 * connector did not know). Its finish reasons come under the singular
 * `gen_ai.response.finish_reason` (`["Stop"]`, `["ToolCalls"]`) and stay as attributes.
 */
import type { AttributeValue, OtlpSpan } from '@aos/otlp';
import { toNumber } from '../attributes.ts';
import type { SpanFacts } from './facts.ts';

export function isSemanticKernelScope(scopeName: string): boolean {
  return scopeName.startsWith('Microsoft.SemanticKernel') || scopeName.startsWith('semantic_kernel');
}

/** A count, unless the connector reported it did not know (-1). */
function known(value: AttributeValue | undefined): number | undefined {
  const n = toNumber(value);
  return n !== undefined && n >= 0 ? n : undefined;
}

export function readSemanticKernel(span: OtlpSpan, f: SpanFacts, scopeName: string): void {
  if (!isSemanticKernelScope(scopeName)) return;
  const a = span.attributes;
  f.inputTokens ??= known(a['gen_ai.response.prompt_tokens']);
  f.outputTokens ??= known(a['gen_ai.response.completion_tokens']);
}
