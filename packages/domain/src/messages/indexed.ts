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
}

/** Upper bound so a malformed span cannot make the loop run away. */
const MAX_ITEMS = 10_000;

export function indexedMessages(spec: IndexedMessagesSpec): IndexedMessages {
  const base = `${spec.prefix}.0${spec.message}`;
  return {
    spec,
    probes: [`${base}.role`, `${base}.content`, `${base}.contents.0.message_content.type`, `${base}.tool_calls.0${spec.toolCall.name}`],
  };
}

function defined(a: Attributes, key: string): AttributeValue | undefined {
  const value = a[key];
  return value === undefined || value === null ? undefined : value;
}

/** OpenLLMetry writes list content as JSON text (`[{"type":"text","text":…}]`): read it as parts. */
function contentValue(value: AttributeValue | undefined): unknown {
  if (typeof value !== 'string' || value[0] !== '[') return value;
  const parsed = parseJsonText(value);
  return Array.isArray(parsed) ? parsed : value;
}

function contentParts(a: Attributes, base: string): unknown[] | undefined {
  const parts: unknown[] = [];
  for (let j = 0; j < MAX_ITEMS; j++) {
    const at = `${base}.contents.${j}.message_content`;
    const type = defined(a, `${at}.type`);
    const text = defined(a, `${at}.text`);
    const image = defined(a, `${at}.image.image.url`);
    if (type === undefined && text === undefined && image === undefined) break;
    if (image !== undefined) parts.push({ type: 'image_url', image_url: { url: image } });
    else if (text !== undefined) parts.push({ type: 'text', text });
  }
  return parts.length > 0 ? parts : undefined;
}

function toolCalls(a: Attributes, base: string, spec: IndexedMessagesSpec): unknown[] | undefined {
  const calls: unknown[] = [];
  for (let j = 0; j < MAX_ITEMS; j++) {
    const at = `${base}.tool_calls.${j}`;
    const name = defined(a, at + spec.toolCall.name);
    const id = defined(a, at + spec.toolCall.id);
    const args = defined(a, at + spec.toolCall.arguments);
    if (name === undefined && id === undefined && args === undefined) break;
    calls.push({ id, type: 'function', function: { name: name ?? '', arguments: args } });
  }
  return calls.length > 0 ? calls : undefined;
}

/** The messages, or undefined when the span has no such list. */
export function readIndexedMessages(a: Attributes, list: IndexedMessages): ChatMessage[] | undefined {
  if (!list.probes.some((key) => a[key] !== undefined)) return undefined;
  const { spec } = list;
  const messages: ChatMessage[] = [];
  for (let i = 0; i < MAX_ITEMS; i++) {
    const base = `${spec.prefix}.${i}${spec.message}`;
    const role = defined(a, `${base}.role`);
    const content = contentParts(a, base) ?? contentValue(defined(a, `${base}.content`));
    const calls = toolCalls(a, base, spec);
    if (role === undefined && content === undefined && calls === undefined) break;
    const m = messageOf({
      role: role ?? spec.defaultRole,
      content,
      tool_calls: calls,
      tool_call_id: defined(a, `${base}.tool_call_id`),
      name: defined(a, `${base}.name`),
      finish_reason: defined(a, `${base}.finish_reason`),
    });
    if (m !== undefined) messages.push(m);
  }
  return messages.length > 0 ? messages : undefined;
}
