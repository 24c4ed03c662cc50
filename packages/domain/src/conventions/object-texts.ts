/**
 * Texts a reader takes from a framework's own input or output value (OpenInference's
 * `input.value` on chains and agents, Genkit's `genkit:input`): when that value is an
 * object holding a conversation (LangChain-serialized graph state
 * `{"messages":[{"lc":1,"type":"constructor",…}]}`, a request or response body), the span
 * takes its messages and the text a person reads is taken from them (messages/readable.ts);
 * the raw value stays in the span's attributes. Anything else is the text as it is.
 */
import { conversationOf } from '../messages/bodies.ts';
import { parseJsonText } from '../messages/json.ts';
import type { Conversation } from '../messages/model.ts';
import { isObject } from '../messages/parts.ts';
import { hasInput, hasOutput, takeInput, takeOutput, type SpanFacts } from './facts.ts';

/**
 * The conversation in a text that is a JSON object or a list of objects; undefined for
 * other texts (plain text, a JSON string, a list of plain values) and for objects that hold
 * no message, so a tool's `{"city":"Paris"}` stays text.
 */
export function objectConversation(text: string, side: 'input' | 'output'): Conversation | undefined {
  const value = parseJsonText(text);
  if (!isObject(value) && !(Array.isArray(value) && value.length > 0 && value.every(isObject))) return undefined;
  const conversation = conversationOf(value, side);
  return conversation !== undefined && conversation.messages.length > 0 ? conversation : undefined;
}

/** The input as messages when its text holds a conversation, else as the text. */
export function takeInputValue(f: SpanFacts, text: string | undefined): void {
  if (text === undefined || hasInput(f)) return;
  const conversation = objectConversation(text, 'input');
  if (conversation === undefined) f.input = text;
  else takeInput(f, conversation);
}

export function takeOutputValue(f: SpanFacts, text: string | undefined): void {
  if (text === undefined || hasOutput(f)) return;
  const conversation = objectConversation(text, 'output');
  if (conversation === undefined) f.output = text;
  else takeOutput(f, conversation.messages);
}
