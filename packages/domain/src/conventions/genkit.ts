/**
 * Genkit (Firebase Genkit, JS / Go / Python): every action is a span with `genkit:*` keys —
 * `genkit:type` (`action`, `flow`, `flowStep`, `util`), `genkit:metadata:subtype` (`model`,
 * `tool`, `embedder`, `retriever`, `flow`, `prompt`…), `genkit:name`, `genkit:input` /
 * `genkit:output` (the action's JSON), `genkit:state` (`success` / `error`) and, in chats,
 * `genkit:sessionId`. A model action's input is a GenerateRequest (`messages` with `content`
 * parts: `text`, `media`, `toolRequest`, `toolResponse`, `reasoning`; role `model` for the
 * assistant), its output a GenerateResponse (`message`, `finishReason`, `usage`); its name
 * is the model as `provider/model`.
 */
import type { AttributeValue, Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstText, textOf } from '../attributes.ts';
import { conversationOf } from '../messages/bodies.ts';
import { attributeJson, unquoteJson } from '../messages/json.ts';
import { isObject } from '../messages/parts.ts';
import { normalizeProvider } from '../model-provider.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';
import { takeInputValue, takeOutputValue } from './object-texts.ts';

export const GENKIT_TYPE_KEY = 'genkit:type';

const SUBTYPES: Readonly<Record<string, SpanType>> = {
  model: 'llm',
  'background-model': 'llm',
  tool: 'tool',
  embedder: 'embedding',
  retriever: 'retrieval',
  reranker: 'reranker',
  evaluator: 'evaluator',
  flow: 'agent',
  agent: 'agent',
  prompt: 'chain',
  util: 'chain',
};

function spanTypeOf(type: string, subtype: string | undefined): SpanType {
  if (subtype !== undefined && SUBTYPES[subtype] !== undefined) return SUBTYPES[subtype]!;
  return type === 'flow' ? 'agent' : 'chain';
}

/** An action's input or output as the text a person reads: a JSON string unquoted, else the JSON. */
function plainText(value: AttributeValue | undefined): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return unquoteJson(value);
}

/** A chat's session; an agent's (`genkit:metadata:subtype=agent`) in its metadata. */
const SESSION_KEYS = ['genkit:sessionId', 'genkit:metadata:agent:sessionId'];

/** Genkit plugin names that are not the provider's own name. */
const PLUGIN_PROVIDERS: Readonly<Record<string, string>> = { googleai: 'google', vertexai: 'gcp.vertex_ai' };

function count(usage: Record<string, unknown>, key: string): number | undefined {
  const value = usage[key];
  return typeof value === 'number' ? value : undefined;
}

function readModel(a: Attributes, f: SpanFacts): void {
  const name = textOf(a, 'genkit:name');
  if (name !== undefined) {
    const slash = name.indexOf('/');
    f.model ??= slash > 0 ? name.slice(slash + 1) : name;
    const plugin = slash > 0 ? name.slice(0, slash) : undefined;
    if (plugin !== undefined) f.provider ??= PLUGIN_PROVIDERS[plugin] ?? normalizeProvider(plugin);
  }
  const request = attributeJson(a['genkit:input']);
  takeInput(f, request === undefined ? undefined : conversationOf(request, 'input'));
  const response = attributeJson(a['genkit:output']);
  if (!isObject(response)) return;
  const messages = conversationOf(response, 'output')?.messages;
  const finish = response['finishReason'];
  if (messages !== undefined && typeof finish === 'string') messages[messages.length - 1]!.finish_reason = finish;
  takeOutput(f, messages);
  const usage = response['usage'];
  if (!isObject(usage)) return;
  f.inputTokens ??= count(usage, 'inputTokens');
  f.outputTokens ??= count(usage, 'outputTokens');
  f.totalTokens ??= count(usage, 'totalTokens');
  f.cacheReadTokens ??= count(usage, 'cachedContentTokens');
  f.reasoningTokens ??= count(usage, 'thoughtsTokens');
}

export function readGenkit(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const type = textOf(a, GENKIT_TYPE_KEY);
  if (type === undefined) return;
  const subtype = textOf(a, 'genkit:metadata:subtype');
  const spanType = spanTypeOf(type, subtype);
  f.spanType ??= spanType;
  f.sessionId ??= firstText(a, SESSION_KEYS);
  f.failed ||= textOf(a, 'genkit:state') === 'error';

  if (spanType === 'llm') return readModel(a, f);
  const input = plainText(a['genkit:input']);
  if (spanType === 'tool') {
    f.toolName ??= textOf(a, 'genkit:name');
    f.toolArguments ??= input;
  }
  if (spanType === 'agent') f.agentName ??= textOf(a, 'genkit:name');
  if (spanType === 'tool') {
    takeInputText(f, input);
    takeOutputText(f, plainText(a['genkit:output']));
  } else {
    // `generate` and flows around it carry the request and response: read as their conversation.
    takeInputValue(f, input);
    takeOutputValue(f, plainText(a['genkit:output']));
  }
}
