/**
 * Message lists that conventions spread over indexed attributes, read back into messages:
 * OpenInference `llm.input_messages.0.message.role`, OpenLLMetry `gen_ai.prompt.0.content`…
 */
import type { AttributeValue, Attributes } from '@aos/otlp';
import { messageOf } from './chat-messages.ts';
import { parseJsonText } from './json.ts';
import type { ChatMessage, MessageRole } from './model.ts';

/**
 * Where one convention puts each message field: `${prefix}.${i}${message}.role`, …, tool
 * calls at `${prefix}.${i}${message}.tool_calls.${j}${toolCall.name}`, and (OpenInference)
 * content parts at `${prefix}.${i}${message}.contents.${j}.message_content.type|text|image.image.url`.
 */
export interface IndexedMessagesSpec {
  prefix: string;
  message: string;
  toolCall: { id: string; name: string; arguments: string };
  /** The role of a message that names none (completions often do not). */
  defaultRole: MessageRole;
}

export interface IndexedMessages {
  spec: IndexedMessagesSpec;
  /** The index-0 keys, so spans without such lists cost a few lookups and no string building. */
  probes: string[];
  /** Keys of a message's fields below its index. */
  fields: { role: string; content: string; toolCallId: string; name: string; finishReason: string };
  /** Where a message's nested lists start below its index. */
  toolCallsAt: string;
  contentsAt: string;
}

export function indexedMessages(spec: IndexedMessagesSpec): IndexedMessages {
  const base = `${spec.prefix}.0${spec.message}`;
  return {
    spec,
    probes: [`${base}.role`, `${base}.content`, `${base}.contents.0.message_content.type`, `${base}.tool_calls.0${spec.toolCall.name}`],
    fields: {
      role: `${spec.message}.role`,
      content: `${spec.message}.content`,
      toolCallId: `${spec.message}.tool_call_id`,
      name: `${spec.message}.name`,
      finishReason: `${spec.message}.finish_reason`,
    },
    toolCallsAt: `${spec.message}.tool_calls`,
    contentsAt: `${spec.message}.contents`,
  };
}

type NestedItems = Map<number, Record<string, AttributeValue>>;

/** Keys of one indexed item below its index (`.message.role` → value), and its nested lists by index (made when the item has one). */
interface Item {
  fields: Record<string, AttributeValue>;
  toolCalls: NestedItems | undefined;
  contents: NestedItems | undefined;
}

/** `.12.rest` → [12, '.rest'], or undefined when the text does not start with `.<digits>`. */
function splitIndex(text: string, from: number): [number, string] | undefined {
  if (text.charCodeAt(from) !== 46 /* . */) return undefined;
  let i = from + 1;
  let index = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    index = index * 10 + (c - 48);
    i++;
  }
  return i === from + 1 || index > 10_000 ? undefined : [index, text.slice(i)];
}

/** One pass over the span's keys: cheaper than building every candidate key of every index. */
function collectItems(a: Attributes, list: IndexedMessages): Map<number, Item> {
  const { spec, toolCallsAt, contentsAt } = list;
  const items = new Map<number, Item>();
  for (const key in a) {
    const value = a[key];
    if (value === undefined || value === null || !key.startsWith(spec.prefix)) continue;
    const split = splitIndex(key, spec.prefix.length);
    if (split === undefined) continue;
    const [index, rest] = split;
    let item = items.get(index);
    if (item === undefined) items.set(index, (item = { fields: {}, toolCalls: undefined, contents: undefined }));
    const isToolCall = rest.startsWith(toolCallsAt);
    if (!isToolCall && !rest.startsWith(contentsAt)) {
      item.fields[rest] = value;
      continue;
    }
    const inner = splitIndex(rest, (isToolCall ? toolCallsAt : contentsAt).length);
    if (inner === undefined) continue;
    const nested = isToolCall ? (item.toolCalls ??= new Map()) : (item.contents ??= new Map());
    let entry = nested.get(inner[0]);
    if (entry === undefined) nested.set(inner[0], (entry = {}));
    entry[inner[1]] = value;
  }
  return items;
}

function byIndex<T>(map: Map<number, T>): T[] {
  return [...map.entries()].sort((x, y) => x[0] - y[0]).map(([, v]) => v);
}

/** OpenLLMetry writes list content as JSON text (`[{"type":"text","text":…}]`): read it as parts. */
function contentValue(value: AttributeValue | undefined): unknown {
  if (typeof value !== 'string' || value[0] !== '[') return value;
  const parsed = parseJsonText(value);
  return Array.isArray(parsed) ? parsed : value;
}

/** OpenInference content parts (`message_content.type|text|image.image.url`) in OpenAI's shape. */
function contentParts(contents: NestedItems | undefined): unknown[] | undefined {
  if (contents === undefined) return undefined;
  return byIndex(contents).map((c) => {
    const image = c['.message_content.image.image.url'];
    return image !== undefined ? { type: 'image_url', image_url: { url: image } } : { type: 'text', text: c['.message_content.text'] ?? '' };
  });
}

/** The messages, or undefined when the span has no such list. */
export function readIndexedMessages(a: Attributes, list: IndexedMessages): ChatMessage[] | undefined {
  if (!list.probes.some((key) => a[key] !== undefined)) return undefined;
  const { spec, fields: keys } = list;
  const messages: ChatMessage[] = [];
  for (const item of byIndex(collectItems(a, list))) {
    const f = item.fields;
    const calls = (item.toolCalls === undefined ? [] : byIndex(item.toolCalls)).map((c) => ({
      id: c[spec.toolCall.id],
      type: 'function',
      function: { name: c[spec.toolCall.name] ?? '', arguments: c[spec.toolCall.arguments] },
    }));
    const message = messageOf({
      role: f[keys.role] ?? spec.defaultRole,
      content: contentParts(item.contents) ?? contentValue(f[keys.content]),
      tool_calls: calls.length > 0 ? calls : undefined,
      tool_call_id: f[keys.toolCallId],
      name: f[keys.name],
      finish_reason: f[keys.finishReason],
    });
    if (message !== undefined) messages.push(message);
  }
  return messages.length > 0 ? messages : undefined;
}
