/**
 * OpenLLMetry / Traceloop conventions: `traceloop.span.kind` and `traceloop.entity.*`
 * on framework spans, `llm.request.type` and `llm.usage.total_tokens` on model
 * spans (whose other fields are `gen_ai.*`, read by genai.ts), and association
 * properties for session and user.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { lowerText, textOf } from '../attributes.ts';
import type { SpanFacts } from './facts.ts';

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

export function readOpenLlmetry(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const kind = lowerText(a, 'traceloop.span.kind');
  const requestType = lowerText(a, 'llm.request.type');
  if (kind !== undefined) {
    f.spanType ??= SPAN_KIND_TYPES[kind];
    const entityName = textOf(a, 'traceloop.entity.name');
    if (kind === 'agent') f.agentName ??= entityName;
    if (kind === 'tool') f.toolName ??= entityName;
    f.input ??= textOf(a, 'traceloop.entity.input');
    f.output ??= textOf(a, 'traceloop.entity.output');
  }
  if (requestType !== undefined) f.spanType ??= REQUEST_TYPE_TYPES[requestType];
  f.sessionId ??= textOf(a, 'traceloop.association.properties.session_id');
  f.userId ??= textOf(a, 'traceloop.association.properties.user_id');
}
