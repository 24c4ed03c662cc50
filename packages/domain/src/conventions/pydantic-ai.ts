/**
 * Pydantic AI's instrumentation (also through Logfire): agent runs carry the whole
 * conversation as `pydantic_ai.all_messages` (GenAI messages; version 1 of its
 * instrumentation sent `all_messages_events` instead) and the run's result as
 * `final_result`; tool spans carry `tool_arguments` / `tool_response` (later versions the
 * GenAI `gen_ai.tool.call.*`, read by genai.ts). Model spans are GenAI semconv.
 *
 * A run's messages are split where the model's final answer starts: what came before is
 * the input (the history, the user's prompt, the tool round trips), the answer the output.
 */
import type { AttributeValue, OtlpSpan } from '@aos/otlp';
import { textOf } from '../attributes.ts';
import { conversationFromEvents, type GenAiEventRecord } from '../messages/events.ts';
import { attributeConversation, attributeJson, unquoteJson } from '../messages/json.ts';
import { splitAtAnswer } from '../messages/model.ts';
import { isObject } from '../messages/parts.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

export const PYDANTIC_AI_SCOPE = 'pydantic-ai';
/** Keys only Pydantic AI writes. */
export const PYDANTIC_AI_MARKER_KEYS = ['pydantic_ai.all_messages', 'all_messages_events', 'final_result'];

/** Version 1: a JSON list of events, each naming itself in `event.name`. */
function eventsConversation(value: AttributeValue | undefined) {
  const events = attributeJson(value);
  if (!Array.isArray(events)) return undefined;
  const records: GenAiEventRecord[] = events.filter(isObject).map((e) => ({ name: String(e['event.name'] ?? ''), attributes: {}, body: e as AttributeValue }));
  return conversationFromEvents(records);
}

function resultText(value: AttributeValue | undefined): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? unquoteJson(value) : JSON.stringify(value);
}

export function readPydanticAi(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const all = attributeConversation(a['pydantic_ai.all_messages'], 'input');
  if (all !== undefined) {
    const { input, output } = splitAtAnswer(all.messages);
    takeInput(f, { system: all.system, messages: input });
    takeOutput(f, output);
    f.spanType ??= 'agent';
  } else if (a['all_messages_events'] !== undefined) {
    const events = eventsConversation(a['all_messages_events']);
    takeInput(f, events?.input && { system: events.system, messages: events.input });
    takeOutput(f, events?.output);
    f.spanType ??= 'agent';
  }
  // The run's result as the application received it (a structured result as its JSON).
  const result = resultText(a['final_result']);
  if (result !== undefined && f.output === undefined) f.output = result;
  f.agentName ??= textOf(a, 'agent_name');

  const args = textOf(a, 'tool_arguments');
  if (args !== undefined) {
    f.toolArguments ??= args;
    takeInputText(f, args);
    takeOutputText(f, resultText(a['tool_response']));
  }
}
