/**
 * LiveKit Agents (`livekit-agents` telemetry, Python and Node): a voice session is one trace,
 * `agent_session` → `user_turn` / `agent_turn` → `llm_node` → `llm_request`, `function_tool`,
 * `tts_node`… The provider request (`llm_request`) is GenAI semconv (model, tokens, message
 * events: genai.ts); this reader adds LiveKit's own keys (`lk.*`):
 *   - `llm_node`: the chat context it sent (`lk.chat_ctx`, `ChatContext.to_dict()`: items
 *     of type `message`, `function_call`, `function_call_output`, the agent's instructions
 *     as its leading system message), the answer (`lk.response.text`) and the tools it
 *     called (`lk.response.function_calls`). A chain: the request below it is the call;
 *   - `llm_request`: `lk.llm_metrics` (JSON) for what semconv does not carry, the cached
 *     prompt tokens (its first-token time comes as `langfuse.observation.completion_start_time`,
 *     read by time-to-first-token.ts);
 *   - `function_tool`: `lk.function_tool.name` / `.arguments` / `.output` / `.is_error`;
 *   - turns: what the user said (`lk.user_input`, `lk.user_transcript`);
 *   - `agent_session`: the agent's name and its room, the conversation (session).
 */
import type { Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { textOf } from '../attributes.ts';
import { messagesOf } from '../messages/chat-messages.ts';
import { attributeJson, unquoteJson } from '../messages/json.ts';
import { message, textPart, toolCallPart, type ChatMessage, type Conversation, type MessagePart } from '../messages/model.ts';
import { isObject, str } from '../messages/parts.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

/** Keys only LiveKit writes: any of them marks the span. */
export const LIVEKIT_MARKER_KEYS = ['lk.chat_ctx', 'lk.llm_metrics', 'lk.function_tool.name', 'lk.agent_name', 'lk.user_input', 'lk.user_transcript', 'lk.speech_id'];

const SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  agent_session: 'agent',
  agent_turn: 'chain',
  llm_node: 'chain',
  llm_request: 'llm',
  function_tool: 'tool',
};

/** The chat context as a conversation: leading system messages are the instructions. */
function chatContext(value: unknown): Conversation | undefined {
  const items = isObject(value) ? value['items'] : undefined;
  const messages = messagesOf(items, 'input');
  if (messages === undefined) return undefined;
  let start = 0;
  const system: MessagePart[] = [];
  while (start < messages.length && messages[start]!.role === 'system') system.push(...messages[start++]!.parts);
  const rest = messages.slice(start);
  return system.length > 0 ? { system, messages: rest } : { messages: rest };
}

/** The node's answer: its text and the function calls it made (`FunctionCall.model_dump()`). */
function answer(a: Attributes): ChatMessage[] | undefined {
  const parts: MessagePart[] = [];
  const text = textOf(a, 'lk.response.text');
  if (text) parts.push(textPart(text));
  const calls = attributeJson(a['lk.response.function_calls']);
  for (const call of Array.isArray(calls) ? calls : []) {
    if (isObject(call) && typeof call['name'] === 'string') parts.push(toolCallPart(call['name'], str(call['call_id']), call['arguments']));
  }
  return parts.length > 0 ? [message('assistant', parts)] : undefined;
}

function cachedTokens(a: Attributes): number | undefined {
  const metrics = attributeJson(a['lk.llm_metrics']);
  const cached = isObject(metrics) ? metrics['prompt_cached_tokens'] : undefined;
  return typeof cached === 'number' ? cached : undefined;
}

function hasAny(a: Attributes, keys: readonly string[]): boolean {
  for (const key of keys) if (a[key] !== undefined) return true;
  return false;
}

// Runs only on spans with `lk.*` keys (key-families.ts): a key read here must be of those families.
export function readLiveKit(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  if (!hasAny(a, LIVEKIT_MARKER_KEYS)) return;
  f.spanType ??= SPAN_TYPES[span.name];
  f.agentName ??= textOf(a, 'lk.agent_name');
  f.sessionId ??= textOf(a, 'lk.room_name');
  f.cacheReadTokens ??= cachedTokens(a);

  const context = attributeJson(a['lk.chat_ctx']);
  if (context !== undefined && span.name === 'llm_node') {
    takeInput(f, chatContext(context));
    takeOutput(f, answer(a));
  }
  const tool = textOf(a, 'lk.function_tool.name');
  if (tool !== undefined) {
    f.spanType ??= 'tool';
    f.toolName ??= tool;
    const args = textOf(a, 'lk.function_tool.arguments');
    f.toolArguments ??= args;
    takeInputText(f, args);
    const output = textOf(a, 'lk.function_tool.output');
    takeOutputText(f, output === undefined ? undefined : unquoteJson(output));
    f.failed ||= a['lk.function_tool.is_error'] === true;
  }
  takeInputText(f, textOf(a, 'lk.user_input') ?? textOf(a, 'lk.user_transcript'));
}
