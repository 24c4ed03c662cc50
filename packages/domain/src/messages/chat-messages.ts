/**
 * Message lists as the libraries shape them, read into the model: GenAI messages, OpenAI
 * chat messages and Responses items, Anthropic, Vercel AI SDK prompts, Gemini contents,
 * LangChain's serialized messages.
 */
import { message, normalizeRole, textPart, toolCallResponsePart, type ChatMessage, type MessagePart, type MessageRole } from './model.ts';
import { contentText, isObject, partOf, partsOf, str, toolCallParts, withFields } from './parts.ts';

type Obj = Record<string, unknown>;

/** LangChain message classes (serialized `{"lc":1,"type":"constructor","id":[…,"HumanMessage"]}`). */
const LANGCHAIN_CLASSES: Readonly<Record<string, MessageRole>> = {
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  FunctionMessage: 'tool',
};
/** LangChain's dict form (`messages_to_dict`, `{"type":"human",…}`). */
const LANGCHAIN_TYPES: Readonly<Record<string, MessageRole>> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', function: 'tool' };

function langChainMessage(item: Obj): ChatMessage | undefined {
  const id = item['id'];
  const className = Array.isArray(id) ? str(id[id.length - 1]) : undefined;
  const kwargs = isObject(item['kwargs']) ? item['kwargs'] : {};
  if (className === undefined) return undefined;
  const role = LANGCHAIN_CLASSES[className] ?? normalizeRole(kwargs['role']);
  const extra = isObject(kwargs['additional_kwargs']) ? kwargs['additional_kwargs'] : {};
  return roleMessage(role, withFields(kwargs, { tool_calls: kwargs['tool_calls'] ?? extra['tool_calls'] }));
}

/** A message with the OpenAI / LangChain extras: tool calls, a tool call id, reasoning content. */
function roleMessage(role: MessageRole, m: Obj): ChatMessage {
  let parts: MessagePart[] = Array.isArray(m['parts']) ? partsOf(m['parts']) : partsOf(m['content']);
  const reasoning = str(m['reasoning_content']) ?? str(m['reasoning']);
  if (reasoning) parts.unshift({ type: 'reasoning', content: reasoning });
  if (typeof m['refusal'] === 'string' && m['refusal'] !== '') parts.push(textPart(m['refusal']));
  // Most messages have no tool calls: no list to build and spread for them.
  const calls = m['tool_calls'];
  if (Array.isArray(calls)) parts.push(...toolCallParts(calls));
  const fn = m['function_call'];
  if (isObject(fn) && typeof fn['name'] === 'string') parts.push(...toolCallParts([{ function: fn }]));
  const toolCallId = str(m['tool_call_id']);
  if (role === 'tool' && !parts.some((p) => p.type === 'tool_call_response')) {
    // OpenAI / LangChain tool messages: the content is the result of the call named by tool_call_id.
    const result = contentText(m['content']) ?? m['content'];
    parts = [toolCallResponsePart(toolCallId, result)];
  }
  // Anthropic and Gemini send tool results as a user's message: it is the tool speaking.
  if (role === 'user' && parts.length > 0 && parts.every((p) => p.type === 'tool_call_response')) role = 'tool';
  const out = message(role, parts);
  const name = str(m['name']);
  if (name !== undefined && name !== '' && role !== 'tool') out.name = name;
  const finish = str(m['finish_reason']);
  if (finish !== undefined) out.finish_reason = finish;
  return out;
}

/** OpenAI Responses input/output items that are not messages. */
function responsesItem(item: Obj, type: string): ChatMessage | undefined {
  if (type === 'function_call' || type === 'custom_tool_call') {
    const part = partOf(withFields(item, { type: 'function_call', arguments: item['arguments'] ?? item['input'] }));
    return part ? message('assistant', [part]) : undefined;
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    const part = partOf(withFields(item, { type: 'function_call_output' }));
    return part ? message('tool', [part]) : undefined;
  }
  if (type === 'reasoning') {
    const part = partOf(item);
    return part ? message('assistant', [part]) : undefined;
  }
  return undefined;
}

/** One message of any library's shape, or undefined when the item is not a message. */
export function messageOf(item: unknown): ChatMessage | undefined {
  if (!isObject(item)) return undefined;
  if (item['lc'] === 1 && item['type'] === 'constructor') return langChainMessage(item);
  const type = str(item['type']);
  if (item['role'] === undefined) {
    if (type === undefined) return undefined;
    const langChainRole = LANGCHAIN_TYPES[type];
    if (langChainRole !== undefined) return roleMessage(langChainRole, isObject(item['data']) ? item['data'] : item);
    return responsesItem(item, type);
  }
  return roleMessage(normalizeRole(item['role']), item);
}

/**
 * A message list, or undefined when the value is not one (not an array, or no element is
 * a message). A list of lists (LangChain batches) is read as its first list. On the input
 * side a bare string is a user's message (agent frameworks take `["hi", …]`).
 */
export function messagesOf(value: unknown, side: 'input' | 'output' = 'output'): ChatMessage[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (Array.isArray(value[0])) return messagesOf(value[0], side);
  const messages: ChatMessage[] = [];
  for (const item of value) {
    const m = typeof item === 'string' && side === 'input' ? message('user', [textPart(item)]) : messageOf(item);
    if (m !== undefined) messages.push(m);
  }
  return messages.length > 0 ? messages : undefined;
}

/**
 * System instructions apart from the history: GenAI parts, a plain text, a list of text
 * blocks (Anthropic), a Gemini content, or system messages.
 */
export function systemPartsOf(value: unknown): MessagePart[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return [textPart(value)];
  if (isObject(value)) {
    if (value['role'] !== undefined) return messageOf(value)?.parts;
    return partsOf(value).length > 0 ? partsOf(value) : undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const parts: MessagePart[] = [];
  for (const item of value) {
    if (isObject(item) && item['role'] !== undefined) parts.push(...(messageOf(item)?.parts ?? []));
    else {
      const part = partOf(item);
      if (part !== undefined) parts.push(part);
    }
  }
  return parts.length > 0 ? parts : undefined;
}
