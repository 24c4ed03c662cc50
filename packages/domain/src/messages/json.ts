/** JSON found inside attribute texts: parsed only when it can be JSON, never thrown. */
import type { AttributeValue } from '@aos/otlp';
import { conversationOf } from './bodies.ts';
import { systemPartsOf } from './chat-messages.ts';
import { message, textPart, type Conversation, type MessagePart } from './model.ts';
import { canonicalMessages, canonicalParts } from './canonical.ts';

/** The parsed value of a text that looks like a JSON object, array or string; undefined otherwise. */
export function parseJsonText(text: string): unknown {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  const first = text[i];
  if (first !== '{' && first !== '[' && first !== '"') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON-quoted string (`"\"hello\""`, as `JSON.stringify` left a returned string) unquoted; other texts as they are. */
export function unquoteJson(text: string): string {
  if (text.length < 2 || text[0] !== '"') return text;
  const value = parseJsonText(text);
  return typeof value === 'string' ? value : text;
}

/** The parsed form of an attribute: strings parsed when they hold JSON, structured values as they are. */
export function attributeJson(value: AttributeValue | undefined): unknown {
  if (typeof value === 'string') return parseJsonText(value);
  return value === null ? undefined : value;
}

/** The conversation an attribute holds (a message list or a body), if any. */
export function attributeConversation(value: AttributeValue | undefined, side: 'input' | 'output'): Conversation | undefined {
  const parsed = attributeJson(value);
  return parsed === undefined ? undefined : conversationOf(parsed, side);
}

/**
 * A prompt or completion given as one value: its conversation when it holds one, else its
 * text as one user (input) or assistant (output) message.
 */
export function textConversation(value: AttributeValue | undefined, side: 'input' | 'output'): Conversation | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const conversation = attributeConversation(value, side);
  if (conversation !== undefined) return conversation;
  const text = typeof value === 'string' ? unquoteJson(value) : JSON.stringify(value);
  return { messages: [message(side === 'input' ? 'user' : 'assistant', [textPart(text)])] };
}

/** A list read from an attribute, with the attribute's text when that text already is the list in the stored shape. */
export interface ReadList<T> {
  list: T;
  source: string | undefined;
}

/** A message list attribute (`gen_ai.input.messages`…), in any of the shapes conversationOf reads. */
export function messageListAttribute(value: AttributeValue | undefined, side: 'input' | 'output'): ReadList<Conversation> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = attributeJson(value);
  const canonical = canonicalMessages(parsed);
  if (canonical !== undefined) return { list: { messages: canonical }, source: typeof value === 'string' ? value : undefined };
  const conversation = parsed === undefined ? undefined : conversationOf(parsed, side);
  return conversation === undefined ? undefined : { list: conversation, source: undefined };
}

/** A system instructions attribute: GenAI parts JSON, or plain text (as Mastra sends its agent's instructions). */
export function systemInstructionsAttribute(value: AttributeValue | undefined): ReadList<MessagePart[]> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = attributeJson(value);
  const canonical = canonicalParts(parsed);
  if (canonical !== undefined) return { list: canonical, source: typeof value === 'string' ? value : undefined };
  const parts = systemPartsOf(parsed ?? value);
  return parts === undefined ? undefined : { list: parts, source: undefined };
}
