/**
 * OpenInference (Arize Phoenix) conventions: `openinference.span.kind`, `llm.*`,
 * `embedding.*`, `input.value` / `output.value` with their MIME types, `tool.*`,
 * `tool_call.*`, `session.id`, `user.id`.
 *
 * Messages come from `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`
 * (content, content parts, tool calls, tool call id); without them, from `input.value` /
 * `output.value` when those hold JSON: the SDK's request body reduced to its messages, the
 * response body to the answer. Other spans (chains, agents, tools) read as text: a JSON
 * object of one text field (`{"input": "…"}`) as that text, a state holding messages
 * (LangGraph's `{"messages":[…]}`) as its conversation.
 */
import type { Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstText, textOf, toNumber } from '../attributes.ts';
import { conversationOf } from '../messages/bodies.ts';
import { indexedMessages, readIndexedMessages } from '../messages/indexed.ts';
import { parseJsonText, unquoteJson } from '../messages/json.ts';
import { message, textPart } from '../messages/model.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';
import { takeInputValue, takeOutputValue } from './object-texts.ts';
import { keyFamilies, LLM_KEYS } from './key-families.ts';

export const OPENINFERENCE_KIND_KEY = 'openinference.span.kind';

/** UNKNOWN and PROMPT (template rendering) are left to the other rules. */
const KIND_SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  LLM: 'llm',
  CHAIN: 'chain',
  TOOL: 'tool',
  AGENT: 'agent',
  RETRIEVER: 'retrieval',
  EMBEDDING: 'embedding',
  RERANKER: 'reranker',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluator',
};

const TOOL_CALL = { id: '.tool_call.id', name: '.tool_call.function.name', arguments: '.tool_call.function.arguments' };
const INPUT_MESSAGES = indexedMessages({ prefix: 'llm.input_messages', message: '.message', toolCall: TOOL_CALL, defaultRole: 'user' });
const OUTPUT_MESSAGES = indexedMessages({ prefix: 'llm.output_messages', message: '.message', toolCall: TOOL_CALL, defaultRole: 'assistant' });

const PROVIDER_KEYS = ['llm.provider', 'llm.system'];
const MODEL_KEYS = ['llm.model_name', 'embedding.model_name'];

/** End of the JSON string token starting at `from` (a quote), or -1. */
function stringEnd(text: string, from: number): number {
  if (text.charCodeAt(from) !== 34 /* " */) return -1;
  for (let i = from + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  return i;
}

/** Whether a text is exactly `{"key": "text"}`, found by scanning: most texts are not, and parsing each costs. */
function isOneTextField(text: string): boolean {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return false;
  i = stringEnd(text, skipSpace(text, i + 1));
  if (i < 0) return false;
  i = skipSpace(text, i);
  if (text[i] !== ':') return false;
  i = stringEnd(text, skipSpace(text, i + 1));
  return i >= 0 && text[skipSpace(text, i)] === '}' && skipSpace(text, skipSpace(text, i) + 1) === text.length;
}

/** `{"input": "…"}`-like objects of one text field, as that text; JSON strings unquoted. */
function readableValue(text: string): string {
  if (text.length > 1 && text[0] === '"') return unquoteJson(text);
  if (!isOneTextField(text)) return text;
  const parsed = parseJsonText(text) as Record<string, string> | undefined;
  return parsed === undefined ? text : (Object.values(parsed)[0] ?? text);
}

function isJson(a: Attributes, mimeKey: string, text: string): boolean {
  const mime = a[mimeKey];
  return mime === 'application/json' || (mime === undefined && (text.trimStart()[0] === '{' || text.trimStart()[0] === '['));
}

/** Texts of `embedding.embeddings.N.embedding.text`, one per line. */
function embeddingTexts(a: Attributes): string | undefined {
  const texts: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const text = textOf(a, `embedding.embeddings.${i}.embedding.text`);
    if (text === undefined) break;
    texts.push(text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function readLlmMessages(a: Attributes, f: SpanFacts, input: string | undefined, output: string | undefined): void {
  const inputMessages = readIndexedMessages(a, INPUT_MESSAGES);
  if (inputMessages !== undefined) takeInput(f, { messages: inputMessages });
  else if (input !== undefined) {
    const body = isJson(a, 'input.mime_type', input) ? conversationOf(parseJsonText(input), 'input') : undefined;
    takeInput(f, body ?? { messages: [message('user', [textPart(input)])] });
  }
  const outputMessages = readIndexedMessages(a, OUTPUT_MESSAGES);
  if (outputMessages !== undefined) takeOutput(f, outputMessages);
  else if (output !== undefined) {
    const body = isJson(a, 'output.mime_type', output) ? conversationOf(parseJsonText(output), 'output') : undefined;
    takeOutput(f, body?.messages ?? [message('assistant', [textPart(output)])]);
  }
}

// Runs only on spans with keys of the OpenInference families (key-families.ts): a key read here must be of those families.
/** `families`: the span's key families (key-families.ts); the `llm.*` keys are looked up only on spans that have some. */
export function readOpenInference(span: OtlpSpan, f: SpanFacts, families = keyFamilies(span.attributes)): void {
  const a = span.attributes;
  const kind = a[OPENINFERENCE_KIND_KEY];
  const spanType = typeof kind === 'string' ? KIND_SPAN_TYPES[kind.toUpperCase()] : undefined;
  f.spanType ??= spanType;

  f.model ??= firstText(a, MODEL_KEYS);
  if (families & LLM_KEYS) {
    f.provider ??= firstText(a, PROVIDER_KEYS)?.toLowerCase();
    f.inputTokens ??= toNumber(a['llm.token_count.prompt']);
    f.outputTokens ??= toNumber(a['llm.token_count.completion']);
    f.totalTokens ??= toNumber(a['llm.token_count.total']);
    f.cacheReadTokens ??= toNumber(a['llm.token_count.prompt_details.cache_read']);
    f.cacheWriteTokens ??= toNumber(a['llm.token_count.prompt_details.cache_write']);
    f.reasoningTokens ??= toNumber(a['llm.token_count.completion_details.reasoning']);
    f.explicitCost ??= toNumber(a['llm.cost.total']);
  }

  const input = textOf(a, 'input.value');
  const output = textOf(a, 'output.value');
  if (spanType === 'llm') {
    readLlmMessages(a, f, input, output);
  } else if (spanType === 'embedding') {
    takeInputText(f, embeddingTexts(a) ?? (input === undefined ? undefined : readableValue(input)));
  } else if (spanType === 'tool') {
    // A tool is named by its span when `tool.name` is absent (the JS instrumentations).
    f.toolName ??= textOf(a, 'tool.name') ?? span.name;
    takeInputText(f, input);
    takeOutputText(f, output === undefined ? undefined : unquoteJson(output));
  } else if (spanType !== undefined) {
    readPlainTexts(span, f);
  }

  f.toolName ??= textOf(a, 'tool.name');
  f.toolCallId ??= textOf(a, 'tool_call.id');
  // `tool.parameters` is the tool's JSON-schema definition, not the call's arguments,
  // so it is not used here; a TOOL span's arguments are its input.
  f.toolArguments ??= textOf(a, 'tool_call.function.arguments') ?? (spanType === 'tool' ? input : undefined);

  // An AGENT span without `agent.name` (as `traceAgent` makes it) is named for its agent.
  f.agentName ??= textOf(a, 'agent.name') ?? (spanType === 'agent' ? span.name : undefined);
  f.sessionId ??= textOf(a, 'session.id');
  f.userId ??= textOf(a, 'user.id');
}

/**
 * `input.value` / `output.value` as plain texts. Also the last resort for spans of other
 * conventions that carry these generic keys (extract.ts runs it after every reader).
 */
export function readPlainTexts(span: OtlpSpan, f: SpanFacts): void {
  const input = textOf(span.attributes, 'input.value');
  const output = textOf(span.attributes, 'output.value');
  // A chain's state holding messages (LangGraph's) reads as its conversation (object-texts.ts).
  takeInputValue(f, input === undefined ? undefined : readableValue(input));
  takeOutputValue(f, output === undefined ? undefined : readableValue(output));
}
