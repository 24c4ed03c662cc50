/**
 * Google Agent Development Kit (scope `gcp.vertex.agent`): model calls (`call_llm`) carry
 * the whole Gemini request and response as JSON (`gcp.vertex.agent.llm_request` /
 * `.llm_response`), tool calls their arguments and response (`gcp.vertex.agent.tool_call_args`
 * / `.tool_response`); agent and tool spans also carry GenAI semconv (read by genai.ts).
 * Cached and thinking tokens are only in the response's `usage_metadata`.
 */
import type { AttributeValue, OtlpSpan } from '@aos/otlp';
import { textOf } from '../attributes.ts';
import { conversationOf } from '../messages/bodies.ts';
import { attributeJson, unquoteJson } from '../messages/json.ts';
import { isObject } from '../messages/parts.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

export const GOOGLE_ADK_SCOPE = 'gcp.vertex.agent';
const PREFIX = 'gcp.vertex.agent.';

function count(usage: Record<string, unknown>, snake: string, camel: string): number | undefined {
  const value = usage[snake] ?? usage[camel];
  return typeof value === 'number' ? value : undefined;
}

/** A request or response body that says something: ADK's tool spans carry both as `{}`. */
function nonEmptyBody(value: AttributeValue | undefined): Record<string, unknown> | undefined {
  const body = attributeJson(value);
  return isObject(body) && Object.keys(body).length > 0 ? body : undefined;
}

// Runs only on spans with `gcp.vertex.agent.*` keys or the ADK scope (key-families.ts): a key read here must be of those families.
export function readGoogleAdk(span: OtlpSpan, f: SpanFacts, scopeName: string): void {
  const a = span.attributes;
  const request = a[`${PREFIX}llm_request`];
  const response = a[`${PREFIX}llm_response`];
  const args = textOf(a, `${PREFIX}tool_call_args`);
  if (scopeName !== GOOGLE_ADK_SCOPE && request === undefined && response === undefined && args === undefined) return;
  f.sessionId ??= textOf(a, `${PREFIX}session_id`);
  f.userId ??= textOf(a, `${PREFIX}user_id`);

  const body = nonEmptyBody(request);
  const answer = nonEmptyBody(response);
  if ((body !== undefined || answer !== undefined) && textOf(a, 'gen_ai.operation.name') !== 'execute_tool') {
    f.spanType ??= 'llm';
    takeInput(f, body === undefined ? undefined : conversationOf(body, 'input'));
    takeOutput(f, answer === undefined ? undefined : conversationOf(answer, 'output')?.messages);
    const usage = answer === undefined ? undefined : (answer['usage_metadata'] ?? answer['usageMetadata']);
    if (isObject(usage)) {
      f.inputTokens ??= count(usage, 'prompt_token_count', 'promptTokenCount');
      f.outputTokens ??= count(usage, 'candidates_token_count', 'candidatesTokenCount');
      f.totalTokens ??= count(usage, 'total_token_count', 'totalTokenCount');
      f.cacheReadTokens ??= count(usage, 'cached_content_token_count', 'cachedContentTokenCount');
      f.reasoningTokens ??= count(usage, 'thoughts_token_count', 'thoughtsTokenCount');
    }
  }
  if (args !== undefined) {
    f.spanType ??= 'tool';
    f.toolArguments ??= args;
    takeInputText(f, args);
    const result = textOf(a, `${PREFIX}tool_response`);
    takeOutputText(f, result === undefined ? undefined : unquoteJson(result));
  }
}
