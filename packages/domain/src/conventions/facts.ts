/**
 * What the instrumentation conventions say about one span, before reconciliation.
 *
 * Convention readers run in priority order and only fill fields that are still
 * undefined (`??=`), so the most specific convention wins field by field while a
 * later one can still contribute what the earlier one lacks (e.g. the Vercel AI SDK
 * reports tokens under `ai.usage.*` but cache details only arrive as `gen_ai.*`).
 */
import type { ChatMessage, Conversation, MessagePart } from '../messages/model.ts';
import type { SpanType } from '../span-row.ts';

export interface SpanFacts {
  spanType: SpanType | undefined;
  /** The convention recognised on the span itself ('vercel-ai', 'openinference', ...). */
  platform: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  agentName: string | undefined;
  /** Readable input / output text stated by a reader (tool arguments, a chain's text);
   *  when undefined the text is taken from the messages (messages/readable.ts). */
  input: string | undefined;
  output: string | undefined;
  inputMessages: ChatMessage[] | undefined;
  outputMessages: ChatMessage[] | undefined;
  systemInstructions: MessagePart[] | undefined;
  /** Attribute texts a list was read from that already hold it exactly (stored as they are, see messages/stored.ts). */
  inputMessagesSource: string | undefined;
  outputMessagesSource: string | undefined;
  systemInstructionsSource: string | undefined;
  sessionId: string | undefined;
  userId: string | undefined;
  toolName: string | undefined;
  toolArguments: string | undefined;
  toolCallId: string | undefined;
  /** Token counts exactly as reported; tokens.ts reconciles them. */
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
  reasoningTokens: number | undefined;
  /** USD from an explicit cost attribute. */
  explicitCost: number | undefined;
  /** The instrumentation reports the call failed (finish reason `error`), whatever the span status says. */
  failed: boolean;
}

/** All fields present from the start so every facts object has the same hidden class. */
export function emptyFacts(): SpanFacts {
  return {
    spanType: undefined,
    platform: undefined,
    model: undefined,
    provider: undefined,
    agentName: undefined,
    input: undefined,
    output: undefined,
    inputMessages: undefined,
    outputMessages: undefined,
    systemInstructions: undefined,
    inputMessagesSource: undefined,
    outputMessagesSource: undefined,
    systemInstructionsSource: undefined,
    sessionId: undefined,
    userId: undefined,
    toolName: undefined,
    toolArguments: undefined,
    toolCallId: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    totalTokens: undefined,
    cacheReadTokens: undefined,
    cacheWriteTokens: undefined,
    reasoningTokens: undefined,
    explicitCost: undefined,
    failed: false,
  };
}

export function hasTokenCounts(facts: SpanFacts): boolean {
  return facts.inputTokens !== undefined || facts.outputTokens !== undefined || facts.totalTokens !== undefined;
}

/** Whether an earlier reader already said what the span received (text or messages). */
export function hasInput(f: SpanFacts): boolean {
  return f.input !== undefined || f.inputMessages !== undefined;
}

export function hasOutput(f: SpanFacts): boolean {
  return f.output !== undefined || f.outputMessages !== undefined;
}

/** Takes a conversation as the span's input unless an earlier reader set one; its system part too. */
export function takeInput(f: SpanFacts, conversation: Conversation | undefined, source?: string): void {
  if (conversation === undefined) return;
  if (conversation.system !== undefined) f.systemInstructions ??= conversation.system;
  if (hasInput(f) || conversation.messages.length === 0) return;
  f.inputMessages = conversation.messages;
  f.inputMessagesSource = source;
}

export function takeOutput(f: SpanFacts, messages: ChatMessage[] | undefined, source?: string): void {
  if (messages === undefined || messages.length === 0 || hasOutput(f)) return;
  f.outputMessages = messages;
  f.outputMessagesSource = source;
}

/** Readable texts stated by a reader, unless an earlier one said what the span received / returned. */
export function takeInputText(f: SpanFacts, text: string | undefined): void {
  if (text !== undefined && !hasInput(f)) f.input = text;
}

export function takeOutputText(f: SpanFacts, text: string | undefined): void {
  if (text !== undefined && !hasOutput(f)) f.output = text;
}
