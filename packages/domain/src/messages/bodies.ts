/**
 * Whole request and response bodies reduced to their conversation: what OpenInference puts
 * in `input.value` / `output.value` (the JSON the SDK sent and received), what Mastra and
 * LangChain record as run inputs and outputs, what Google ADK records as LLM requests.
 */
import { messageOf, messagesOf, systemPartsOf } from './chat-messages.ts';
import { message, textPart, type ChatMessage, type Conversation, type MessagePart } from './model.ts';
import { isObject, partOf, str, toolCallParts, withFields } from './parts.ts';

type Obj = Record<string, unknown>;

function withSystem(messages: ChatMessage[], system: MessagePart[] | undefined): Conversation {
  return system === undefined ? { messages } : { system, messages };
}

function userText(text: unknown): ChatMessage[] {
  return typeof text === 'string' && text !== '' ? [message('user', [textPart(text)])] : [];
}

function firstDefined(o: Obj, keys: readonly string[]): unknown {
  for (const key of keys) if (o[key] !== undefined && o[key] !== null) return o[key];
  return undefined;
}

const GEMINI_SYSTEM_KEYS = ['system_instruction', 'systemInstruction'];

/** A request: chat (`messages`), Responses (`input` + `instructions`), Gemini (`contents`), completion (`prompt`). */
function requestConversation(body: Obj): Conversation | undefined {
  const config = isObject(body['config']) ? body['config'] : {};
  const system = systemPartsOf(
    firstDefined(body, ['system', 'instructions', ...GEMINI_SYSTEM_KEYS]) ?? firstDefined(config, GEMINI_SYSTEM_KEYS),
  );
  const messages = messagesOf(body['messages'], 'input') ?? messagesOf(body['contents'], 'input') ?? messagesOf(body['input'], 'input');
  if (messages !== undefined) {
    // The Vercel AI SDK's `ai.prompt` holds a prompt beside (or instead of) messages.
    const prompt = body['prompt'];
    return withSystem([...messages, ...(typeof prompt === 'string' ? userText(prompt) : (messagesOf(prompt, 'input') ?? []))], system);
  }
  const prompt = body['prompt'] ?? body['input'] ?? body['contents'];
  if (typeof prompt === 'string') return withSystem(userText(prompt), system);
  const promptMessages = messagesOf(prompt, 'input');
  if (promptMessages !== undefined) return withSystem(promptMessages, system);
  if (system !== undefined && (body['messages'] !== undefined || body['prompt'] !== undefined)) return withSystem([], system);
  if (isObject(body['inputs'])) return requestConversation(body['inputs']); // OpenLLMetry's LangChain callback
  return undefined;
}

/** The assistant message of a Vercel / Mastra result (`{"text","toolCalls","reasoning"…}`). */
function resultMessage(body: Obj): ChatMessage | undefined {
  const parts: MessagePart[] = [];
  const reasoning = str(body['reasoningText']) ?? str(body['reasoning']);
  if (reasoning) parts.push({ type: 'reasoning', content: reasoning });
  const text = str(body['text']);
  if (text) parts.push(textPart(text));
  else if (body['object'] !== undefined && body['object'] !== null) parts.push(textPart(JSON.stringify(body['object'])));
  for (const call of Array.isArray(body['toolCalls']) ? body['toolCalls'] : []) {
    const part = partOf(isObject(call) && call['type'] === undefined ? withFields(call, { type: 'tool-call' }) : call);
    if (part?.type === 'tool_call') parts.push(part);
  }
  if (parts.length === 0 && text === undefined) return undefined;
  const out = message('assistant', parts);
  const finish = str(body['finishReason']);
  if (finish !== undefined) out.finish_reason = finish;
  return out;
}

function choiceMessage(choice: unknown): ChatMessage | undefined {
  if (!isObject(choice)) return undefined;
  const m = isObject(choice['message']) ? messageOf(choice['message']) : typeof choice['text'] === 'string' ? message('assistant', [textPart(choice['text'])]) : undefined;
  const finish = str(choice['finish_reason']) ?? str(choice['finishReason']);
  if (m !== undefined && finish !== undefined) m.finish_reason = finish;
  return m;
}

function candidateMessage(candidate: unknown): ChatMessage | undefined {
  if (!isObject(candidate)) return undefined;
  const m = messageOf(candidate['content']);
  const finish = str(candidate['finishReason']) ?? str(candidate['finish_reason']);
  if (m !== undefined && finish !== undefined) m.finish_reason = finish.toLowerCase();
  return m;
}

function defined(messages: (ChatMessage | undefined)[]): ChatMessage[] | undefined {
  const out = messages.filter((m): m is ChatMessage => m !== undefined);
  return out.length > 0 ? out : undefined;
}

/** A response: chat completion, Responses, Anthropic, Gemini / ADK, LangChain, Vercel / Mastra result. */
function responseMessages(body: Obj): ChatMessage[] | undefined {
  if (Array.isArray(body['choices'])) return defined(body['choices'].map(choiceMessage));
  if (Array.isArray(body['candidates'])) return defined(body['candidates'].map(candidateMessage));
  if (Array.isArray(body['output'])) return messagesOf(body['output']);
  if (Array.isArray(body['generations'])) {
    const first = Array.isArray(body['generations'][0]) ? body['generations'][0] : body['generations'];
    return defined(first.map((g: unknown) => (isObject(g) ? (messageOf(g['message']) ?? choiceMessage(g)) : undefined)));
  }
  if (body['role'] !== undefined) {
    const m = messageOf(body);
    const stop = str(body['stop_reason']);
    if (m !== undefined && stop !== undefined) m.finish_reason = stop;
    return m === undefined ? undefined : [m];
  }
  if (isObject(body['content']) && Array.isArray(body['content']['parts'])) {
    return defined([candidateMessage({ content: body['content'], finish_reason: body['finish_reason'] })]);
  }
  if (isObject(body['message'])) return defined([messageOf(body['message'])]);
  const result = resultMessage(body);
  if (result !== undefined) return [result];
  if (typeof body['output'] === 'string') return [message('assistant', [textPart(body['output'])])];
  if (Array.isArray(body['messages'])) return messagesOf(body['messages']);
  if (isObject(body['outputs'])) return responseMessages(body['outputs']);
  return undefined;
}

/**
 * The conversation in a parsed JSON value: a message list, or a request (`input` side) or
 * response (`output` side) body. Undefined when the value holds none.
 */
export function conversationOf(value: unknown, side: 'input' | 'output'): Conversation | undefined {
  if (Array.isArray(value)) {
    const messages = messagesOf(value, side);
    return messages === undefined ? undefined : { messages };
  }
  if (!isObject(value)) return undefined;
  // One LangChain-serialized message (a chain's AIMessage result) is that message on either side.
  if (value['lc'] === 1 && value['type'] === 'constructor') {
    const m = messageOf(value);
    return m === undefined ? undefined : { messages: [m] };
  }
  if (value['role'] !== undefined) {
    const m = side === 'output' ? responseMessages(value) : defined([messageOf(value)]);
    return m === undefined ? undefined : { messages: m };
  }
  if (side === 'input') return requestConversation(value);
  const messages = responseMessages(value);
  return messages === undefined ? undefined : { messages };
}

/** Assistant tool calls from a list of `{toolCallId, toolName, input|args}` (Vercel `ai.response.toolCalls`). */
export function toolCallsOf(value: unknown): MessagePart[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((call) => {
    const part = partOf(isObject(call) && call['type'] !== 'tool-call' ? withFields(call, { type: 'tool-call' }) : call);
    return part?.type === 'tool_call' ? [part] : toolCallParts([call]);
  });
}
