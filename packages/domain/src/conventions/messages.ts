/**
 * Message lists that conventions spread over several attributes or events, rebuilt
 * as one JSON text for the `input` / `output` columns.
 */
import type { AttributeValue, Attributes, OtlpEvent } from '@aos/otlp';
import { valueToText } from '../attributes.ts';

type FieldSpec = readonly (readonly [name: string, suffix: string])[];

/**
 * How one convention flattens a list of messages into attributes:
 * `${prefix}.${i}${suffix}` for each field, optionally with nested tool calls
 * at `${prefix}.${i}${toolCalls.infix}.${j}${suffix}`.
 */
export interface IndexedListSpec {
  prefix: string;
  fields: FieldSpec;
  toolCalls?: { infix: string; fields: FieldSpec };
}

/** Upper bound so a malformed span cannot make the loop run away. */
const MAX_ITEMS = 10_000;

function collectItem(
  attributes: Attributes,
  base: string,
  fields: FieldSpec,
): Record<string, AttributeValue> | undefined {
  let item: Record<string, AttributeValue> | undefined;
  for (const [name, suffix] of fields) {
    const value = attributes[base + suffix];
    if (value === undefined) continue;
    (item ??= {})[name] = value;
  }
  return item;
}

function collectList(
  attributes: Attributes,
  prefix: string,
  fields: FieldSpec,
  toolCalls: IndexedListSpec['toolCalls'],
): Record<string, AttributeValue>[] {
  const items: Record<string, AttributeValue>[] = [];
  for (let i = 0; i < MAX_ITEMS; i++) {
    const base = `${prefix}.${i}`;
    const item = collectItem(attributes, base, fields);
    const calls = toolCalls ? collectList(attributes, base + toolCalls.infix, toolCalls.fields, undefined) : [];
    if (item === undefined && calls.length === 0) break;
    const message = item ?? {};
    if (calls.length > 0) message['tool_calls'] = calls;
    items.push(message);
  }
  return items;
}

/**
 * JSON array rebuilt from indexed attributes, or undefined when index 0 is absent.
 * `probeKeys` are the index-0 keys, precomputed so spans without such lists cost
 * a couple of lookups and no string building.
 */
export function indexedMessages(attributes: Attributes, spec: IndexedListSpec, probeKeys: readonly string[]): string | undefined {
  if (!probeKeys.some((key) => attributes[key] !== undefined)) return undefined;
  const items = collectList(attributes, spec.prefix, spec.fields, spec.toolCalls);
  return items.length > 0 ? JSON.stringify(items) : undefined;
}

/** The index-0 keys of a spec (message fields and the first tool call's fields). */
export function probeKeysOf(spec: IndexedListSpec): string[] {
  const base = `${spec.prefix}.0`;
  const keys = spec.fields.map(([, suffix]) => base + suffix);
  if (spec.toolCalls) {
    for (const [, suffix] of spec.toolCalls.fields) keys.push(`${base}${spec.toolCalls.infix}.0${suffix}`);
  }
  return keys;
}

/**
 * Semconv keeps system instructions apart from the chat history; prepend them as a
 * system message (semconv message shape: role + parts) so the input keeps both.
 */
export function withSystemInstructions(messages: string | undefined, instructions: string | undefined): string | undefined {
  if (instructions === undefined) return messages;
  let parts = JSON.stringify([{ type: 'text', content: instructions }]);
  if (instructions.trimStart().startsWith('[')) {
    try {
      if (Array.isArray(JSON.parse(instructions))) parts = instructions;
    } catch {
      // plain text that happens to start with "[": keep it as one text part
    }
  }
  const systemMessage = `{"role":"system","parts":${parts}}`;
  if (messages === undefined) return `[${systemMessage}]`;
  const trimmed = messages.trim();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) {
    return JSON.stringify({ system_instructions: JSON.parse(parts) as unknown, messages });
  }
  const rest = trimmed.slice(1).trimStart();
  return rest.startsWith(']') ? `[${systemMessage}]` : `[${systemMessage},${rest}`;
}

/** GenAI per-message events (span-event form) and the role each one stands for. */
const MESSAGE_EVENT_ROLES: Readonly<Record<string, string>> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};
/** Attributes that describe the producer rather than the message. */
const NOT_MESSAGE_CONTENT = new Set(['gen_ai.system', 'gen_ai.provider.name']);

function eventMessage(role: string | undefined, attributes: Attributes): Record<string, AttributeValue> {
  const message: Record<string, AttributeValue> = role === undefined ? {} : { role };
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined && !NOT_MESSAGE_CONTENT.has(key)) message[key] = value;
  }
  return message;
}

function eventText(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  return value === undefined || value === null || value === '' ? undefined : valueToText(value);
}

/**
 * Input/output recovered from GenAI events, for spans whose attributes carry none.
 * Newest form first: the `gen_ai.client.inference.operation.details` event, then
 * per-message events (`gen_ai.*.message` in, `gen_ai.choice` out), then the old
 * `gen_ai.content.prompt` / `gen_ai.content.completion` events.
 */
export function messagesFromEvents(events: readonly OtlpEvent[]): { input: string | undefined; output: string | undefined } {
  let detailsIn: string | undefined;
  let detailsOut: string | undefined;
  let promptText: string | undefined;
  let completionText: string | undefined;
  const inputMessages: Record<string, AttributeValue>[] = [];
  const choices: Record<string, AttributeValue>[] = [];
  for (const event of events) {
    const role = MESSAGE_EVENT_ROLES[event.name];
    if (role !== undefined) {
      inputMessages.push(eventMessage(role, event.attributes));
    } else if (event.name === 'gen_ai.choice') {
      choices.push(eventMessage(undefined, event.attributes));
    } else if (event.name === 'gen_ai.content.prompt') {
      promptText ??= eventText(event.attributes, 'gen_ai.prompt');
    } else if (event.name === 'gen_ai.content.completion') {
      completionText ??= eventText(event.attributes, 'gen_ai.completion');
    } else if (event.name === 'gen_ai.client.inference.operation.details') {
      detailsIn ??= eventText(event.attributes, 'gen_ai.input.messages');
      detailsOut ??= eventText(event.attributes, 'gen_ai.output.messages');
    }
  }
  return {
    input: detailsIn ?? (inputMessages.length > 0 ? JSON.stringify(inputMessages) : promptText),
    output: detailsOut ?? (choices.length > 0 ? JSON.stringify(choices) : completionText),
  };
}
