/**
 * The Langfuse SDKs' own attributes (tracer scope `langfuse-sdk`: its JS SDK's
 * `@langfuse/tracing` through `@langfuse/otel`'s span processor, its Python SDK v3+), as a
 * team moving from those SDKs sends them:
 *   - `langfuse.observation.type` (`generation`, `embedding`, `agent`, `tool`, `chain`,
 *     `retriever`, `evaluator`, `guardrail`; `span` and `event` say nothing of the work, so
 *     the other conventions on the span decide);
 *   - `.model.name`, `.input` / `.output` (JSON of what the caller passed: messages are read
 *     as messages), `.usage_details` / `.cost_details` (JSON maps), `.level` (`ERROR`);
 *   - the trace's `langfuse.trace.input` / `.output` (on the span that set them), session
 *     and user as `session.id` / `user.id` (read by extract.ts) or their older
 *     `langfuse.session.id` / `langfuse.user.id`, `langfuse.environment` (resource.ts).
 * `langfuse.trace.name`, `.metadata.*` and `.tags` stay in the attributes, where filters and
 * dimensions read them.
 */
import type { Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { lowerText, textOf } from '../attributes.ts';
import { attributeJson, unquoteJson } from '../messages/json.ts';
import { isObject } from '../messages/parts.ts';
import { takeInputText, takeOutputText, type SpanFacts } from './facts.ts';
import { takeInputValue, takeOutputValue } from './object-texts.ts';

export const LANGFUSE_SCOPE = 'langfuse-sdk';
export const LANGFUSE_TYPE_KEY = 'langfuse.observation.type';
const PREFIX = 'langfuse.observation.';

const OBSERVATION_TYPES: Readonly<Record<string, SpanType>> = {
  generation: 'llm',
  embedding: 'embedding',
  agent: 'agent',
  tool: 'tool',
  chain: 'chain',
  retriever: 'retrieval',
  evaluator: 'evaluator',
  guardrail: 'guardrail',
};

/** Keys only the Langfuse SDKs write. (Strands Agents also sets `langfuse.observation.type=span` when it exports to Langfuse.) */
export const LANGFUSE_MARKER_KEYS = [`${PREFIX}model.name`, `${PREFIX}input`, `${PREFIX}output`, `${PREFIX}usage_details`, 'langfuse.trace.name'];

type Counts = Record<string, unknown>;

function count(usage: Counts, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = usage[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

function sum(...values: (number | undefined)[]): number {
  return values.reduce<number>((total, v) => total + (v ?? 0), 0);
}

/**
 * Usage details: OpenAI's names (`prompt_tokens`, `input_tokens`, … totals that include
 * their cached and reasoning parts), or Langfuse's own buckets (`input`, `output` beside
 * `input_cached_tokens`, `output_reasoning_tokens`…), which it prices one by one and so
 * are apart: the input is then `input` plus its cache buckets, the output `output` plus
 * its reasoning.
 */
function readUsage(usage: Counts, f: SpanFacts): void {
  const cacheRead = count(usage, ['input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read', 'cached_tokens']);
  const cacheWrite = count(usage, ['cache_creation_input_tokens', 'input_cache_creation', 'input_cache_write']);
  const reasoning = count(usage, ['output_reasoning_tokens', 'reasoning_tokens', 'output_reasoning']);
  const bucketIn = count(usage, ['input']);
  const bucketOut = count(usage, ['output']);
  f.inputTokens ??= count(usage, ['prompt_tokens', 'input_tokens']) ?? (bucketIn === undefined ? undefined : sum(bucketIn, cacheRead, cacheWrite));
  f.outputTokens ??= count(usage, ['completion_tokens', 'output_tokens']) ?? (bucketOut === undefined ? undefined : sum(bucketOut, reasoning));
  f.totalTokens ??= count(usage, ['total', 'total_tokens']);
  f.cacheReadTokens ??= cacheRead;
  f.cacheWriteTokens ??= cacheWrite;
  f.reasoningTokens ??= reasoning;
}

/** Cost details: their `total`, else the sum of the buckets. */
function costOf(details: Counts): number | undefined {
  const total = count(details, ['total']);
  if (total !== undefined) return total;
  const buckets = Object.values(details).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return buckets.length > 0 ? sum(...buckets) : undefined;
}

function isLangfuse(a: Attributes, scopeName: string): boolean {
  if (scopeName === LANGFUSE_SCOPE) return true;
  for (const key of LANGFUSE_MARKER_KEYS) if (a[key] !== undefined) return true;
  const type = lowerText(a, LANGFUSE_TYPE_KEY);
  return type !== undefined && OBSERVATION_TYPES[type] !== undefined;
}

function text(a: Attributes, key: string): string | undefined {
  const value = textOf(a, key);
  return value === undefined || value === '' ? undefined : unquoteJson(value);
}

// Runs only on spans with `langfuse.*` keys or the Langfuse scope (key-families.ts): a key read here must be of those families.
export function readLangfuse(span: OtlpSpan, f: SpanFacts, scopeName: string): void {
  const a = span.attributes;
  if (!isLangfuse(a, scopeName)) return;
  const type = lowerText(a, LANGFUSE_TYPE_KEY);
  const spanType = type === undefined ? undefined : OBSERVATION_TYPES[type];
  f.spanType ??= spanType;
  f.model ??= textOf(a, `${PREFIX}model.name`);
  const usage = attributeJson(a[`${PREFIX}usage_details`]);
  if (isObject(usage)) readUsage(usage, f);
  const cost = attributeJson(a[`${PREFIX}cost_details`]);
  if (isObject(cost)) f.explicitCost ??= costOf(cost);
  f.failed ||= lowerText(a, `${PREFIX}level`) === 'error';
  f.sessionId ??= textOf(a, 'langfuse.session.id');
  f.userId ??= textOf(a, 'langfuse.user.id');
  if (spanType === 'agent') f.agentName ??= span.name;

  const input = text(a, `${PREFIX}input`) ?? text(a, 'langfuse.trace.input');
  const output = text(a, `${PREFIX}output`) ?? text(a, 'langfuse.trace.output');
  if (spanType === 'tool') {
    f.toolName ??= span.name;
    f.toolArguments ??= input;
    takeInputText(f, input);
    takeOutputText(f, output);
  } else {
    takeInputValue(f, input);
    takeOutputValue(f, output);
  }
}
