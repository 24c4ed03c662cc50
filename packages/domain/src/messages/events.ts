/**
 * GenAI events (span events today; OTLP log records carry the same names and bodies) read
 * into the message model. Newest form first: `gen_ai.client.inference.operation.details`
 * (the whole conversation as attributes), then one event per message
 * (`gen_ai.{system,user,assistant,tool}.message` in, `gen_ai.choice` out), then the old
 * `gen_ai.content.prompt` / `gen_ai.content.completion`.
 */
import type { AttributeValue, Attributes } from '@aos/otlp';
import { messageOf, systemPartsOf } from './chat-messages.ts';
import { attributeJson, parseJsonText, textConversation } from './json.ts';
import type { ChatMessage, MessagePart } from './model.ts';
import { isObject, partOf, withFields } from './parts.ts';

/** One event as a span event or a log record has it (a log record's body, when there is one). */
export interface GenAiEventRecord {
  name: string;
  attributes: Attributes;
  body?: AttributeValue;
}

export interface EventConversation {
  system: MessagePart[] | undefined;
  input: ChatMessage[] | undefined;
  output: ChatMessage[] | undefined;
}

const MESSAGE_EVENT_ROLES: Readonly<Record<string, string>> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/** Event names the reader understands: any of them on a span is worth a walk. */
export const GENAI_MESSAGE_EVENTS: ReadonlySet<string> = new Set([
  ...Object.keys(MESSAGE_EVENT_ROLES),
  'gen_ai.choice',
  'gen_ai.client.inference.operation.details',
  'gen_ai.content.prompt',
  'gen_ai.content.completion',
]);

/** Attributes that describe the producer rather than the message. */
const NOT_MESSAGE_CONTENT = new Set(['gen_ai.system', 'gen_ai.provider.name', 'gen_ai.event.content', 'event.name']);

/** The event's body: a log record's body, or `gen_ai.event.content` JSON, or its attributes. */
function eventBody(event: GenAiEventRecord): Record<string, unknown> {
  const body = event.body !== undefined ? event.body : attributeJson(event.attributes['gen_ai.event.content']);
  if (isObject(body)) return body;
  const out: Record<string, unknown> = {};
  for (const key in event.attributes) if (!NOT_MESSAGE_CONTENT.has(key)) out[key] = event.attributes[key];
  return out;
}

/**
 * Content sent as the JSON text of a list of content blocks (Strands Agents:
 * `[{"text":"…"},{"toolUse":{…}}]`) as that list, when every element is a part; other
 * values as they are, so a user's text that happens to be JSON stays text.
 */
export function contentBlocks(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parsed = parseJsonText(value);
  if (!Array.isArray(parsed) || parsed.length === 0) return value;
  for (const item of parsed) if (partOf(item) === undefined) return value;
  return parsed;
}

function messageEvent(role: string, body: Record<string, unknown>): ChatMessage | undefined {
  // A tool message names the call it answers as `id`.
  const toolCallId = role === 'tool' ? (body['tool_call_id'] ?? body['id']) : undefined;
  return messageOf(withFields(body, { content: contentBlocks(body['content']), role: body['role'] ?? role, tool_call_id: toolCallId }));
}

/** The answer: a message object, or (Strands) its content as text or content-block JSON. */
function choiceEvent(body: Record<string, unknown>): ChatMessage | undefined {
  const sent = body['message'];
  const m = isObject(sent) ? sent : typeof sent === 'string' ? { content: contentBlocks(sent) } : body;
  return messageOf(withFields(m, { role: m['role'] ?? 'assistant', finish_reason: body['finish_reason'] ?? m['finish_reason'] }));
}

export function conversationFromEvents(events: readonly GenAiEventRecord[]): EventConversation {
  const out: EventConversation = { system: undefined, input: undefined, output: undefined };
  const inputMessages: ChatMessage[] = [];
  const choices: ChatMessage[] = [];
  let prompt: ChatMessage[] | undefined;
  let completion: ChatMessage[] | undefined;
  for (const event of events) {
    const role = MESSAGE_EVENT_ROLES[event.name];
    if (role !== undefined) {
      const m = messageEvent(role, eventBody(event));
      if (m !== undefined) inputMessages.push(m);
    } else if (event.name === 'gen_ai.choice') {
      const m = choiceEvent(eventBody(event));
      if (m !== undefined) choices.push(m);
    } else if (event.name === 'gen_ai.client.inference.operation.details') {
      const a = event.attributes;
      out.system ??= systemPartsOf(attributeJson(a['gen_ai.system_instructions']) ?? a['gen_ai.system_instructions']);
      out.input ??= textConversation(a['gen_ai.input.messages'], 'input')?.messages;
      out.output ??= textConversation(a['gen_ai.output.messages'], 'output')?.messages;
    } else if (event.name === 'gen_ai.content.prompt') {
      prompt ??= textConversation(event.attributes['gen_ai.prompt'], 'input')?.messages;
    } else if (event.name === 'gen_ai.content.completion') {
      completion ??= textConversation(event.attributes['gen_ai.completion'], 'output')?.messages;
    }
  }
  out.input ??= inputMessages.length > 0 ? inputMessages : prompt;
  out.output ??= choices.length > 0 ? choices : completion;
  return out;
}
