/**
 * OpenLLMetry / Traceloop conventions: `traceloop.span.kind` and `traceloop.entity.*`
 * on framework spans, `llm.request.type` and `llm.usage.total_tokens` on model
 * spans (whose other fields are `gen_ai.*`, read by genai.ts), and association
 * properties for session and user.
 *
 * Entity inputs are the decorated function's call, JSON-encoded: `{"args":[…],"kwargs":{…}}`
 * (Python and JS decorators), `{"inputs":…,"tags":…,"metadata":…,"kwargs":…}` (the
 * LangChain callback); outputs its return value JSON-encoded (a returned string arrives
 * quoted). They are unwrapped to what was passed and returned; a tool's keyword arguments
 * are its call arguments.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { lowerText, textOf } from '../attributes.ts';
import { conversationOf } from '../messages/bodies.ts';
import { parseJsonText } from '../messages/json.ts';
import { isObject } from '../messages/parts.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

/** Workflows and tasks are plain orchestration steps, hence `chain`. */
const SPAN_KIND_TYPES: Readonly<Record<string, SpanType>> = {
  workflow: 'chain',
  task: 'chain',
  agent: 'agent',
  tool: 'tool',
};

const REQUEST_TYPE_TYPES: Readonly<Record<string, SpanType>> = {
  chat: 'llm',
  completion: 'llm',
  embedding: 'embedding',
  rerank: 'reranker',
};

/** Keys only OpenLLMetry writes; any of them identifies the platform. */
export const OPENLLMETRY_MARKER_KEYS = ['traceloop.span.kind', 'traceloop.entity.name', 'llm.request.type'];

export interface EntityValue {
  /** What was passed or returned, unwrapped; undefined for a call without arguments. */
  value: unknown;
  /** Keyword arguments, when the call had some. */
  kwargs: Record<string, unknown> | undefined;
}

function nonEmpty(o: unknown): o is Record<string, unknown> {
  return isObject(o) && Object.keys(o).length > 0;
}

/** An entity input or output, unwrapped (see the module comment). */
export function unwrapEntity(text: string): EntityValue {
  const parsed = parseJsonText(text);
  if (parsed === undefined) return { value: text, kwargs: undefined };
  if (!isObject(parsed)) return { value: parsed, kwargs: undefined };
  if ('inputs' in parsed) return { value: parsed['inputs'], kwargs: undefined };
  if ('outputs' in parsed) return { value: parsed['outputs'], kwargs: undefined };
  const keys = Object.keys(parsed);
  if (!keys.every((k) => k === 'args' || k === 'kwargs')) return { value: parsed, kwargs: undefined };
  const args = Array.isArray(parsed['args']) ? parsed['args'] : [];
  const kwargs = nonEmpty(parsed['kwargs']) ? parsed['kwargs'] : undefined;
  if (args.length === 0) return { value: kwargs, kwargs };
  if (args.length === 1 && kwargs === undefined) return { value: args[0], kwargs };
  return { value: kwargs === undefined ? args : parsed, kwargs };
}

function textOfValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// Runs only on spans with `traceloop.*` or `llm.*` keys (key-families.ts): a key read here must be of those families.
export function readOpenLlmetry(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const kind = lowerText(a, 'traceloop.span.kind');
  const requestType = lowerText(a, 'llm.request.type');
  if (kind !== undefined) {
    f.spanType ??= SPAN_KIND_TYPES[kind];
    const entityName = textOf(a, 'traceloop.entity.name');
    if (kind === 'agent') f.agentName ??= entityName;
    if (kind === 'tool') f.toolName ??= entityName;
    const input = textOf(a, 'traceloop.entity.input');
    if (input !== undefined) {
      const entity = unwrapEntity(input);
      if (kind === 'tool') f.toolArguments ??= textOfValue(entity.kwargs ?? entity.value);
      const conversation = typeof entity.value === 'object' ? conversationOf(entity.value, 'input') : undefined;
      if (conversation !== undefined && conversation.messages.length > 0) takeInput(f, conversation);
      else takeInputText(f, textOfValue(entity.value));
    }
    const output = textOf(a, 'traceloop.entity.output');
    if (output !== undefined) {
      const entity = unwrapEntity(output);
      const conversation = typeof entity.value === 'object' ? conversationOf(entity.value, 'output') : undefined;
      if (conversation !== undefined) takeOutput(f, conversation.messages);
      else takeOutputText(f, textOfValue(entity.value));
    }
  }
  if (requestType !== undefined) f.spanType ??= REQUEST_TYPE_TYPES[requestType];
  f.sessionId ??= textOf(a, 'traceloop.association.properties.session_id');
  f.userId ??= textOf(a, 'traceloop.association.properties.user_id');
}
