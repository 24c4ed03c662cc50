/**
 * Time to first token (ms) for streamed generations.
 *
 * Attributes first, as they are measured by the client itself:
 *   milliseconds: ai.response.msToFirstChunk (Vercel AI SDK doStream),
 *                 ai.stream.msToFirstChunk (Vercel AI SDK streamText);
 *   seconds:      gen_ai.response.time_to_first_chunk (GenAI semconv span attribute),
 *                 gen_ai.server.time_to_first_token and
 *                 gen_ai.client.operation.time_to_first_chunk (GenAI semconv metric
 *                 names, used as span attributes by some instrumentations, the Vercel
 *                 AI SDK 7 among them), llm.time_to_first_token;
 *   a time:       mastra.completion_start_time (ISO 8601), langfuse.observation.completion_start_time
 *                 (ISO 8601 as a JSON string, LiveKit Agents' llm_request), minus the span start.
 * Some exporters put milliseconds into the "seconds" keys; a value that read as
 * seconds would exceed the span's duration but fits as milliseconds is taken as ms.
 *
 * Otherwise the earliest first-token event, minus the span start:
 *   ai.stream.firstChunk (Vercel AI SDK), First Token Stream Event (OpenInference
 *   LangChain), gen_ai.content.completion.chunk, gen_ai.first_token, llm.first_token,
 *   first_token.
 */
import type { OtlpSpan } from '@aos/otlp';
import { firstNumber } from './attributes.ts';
import { AI_KEYS, GENAI_KEYS, keyFamilies, LANGFUSE_KEYS, LLM_KEYS, MASTRA_KEYS } from './conventions/key-families.ts';
import { unquoteJson } from './messages/json.ts';
import { diffMillis, nanosToMillis } from './time.ts';

const START_TIME_KEYS = ['mastra.completion_start_time', 'langfuse.observation.completion_start_time'];

const MILLISECOND_KEYS = ['ai.response.msToFirstChunk', 'ai.stream.msToFirstChunk'];
const SECOND_KEYS = [
  'gen_ai.response.time_to_first_chunk',
  'gen_ai.server.time_to_first_token',
  'gen_ai.client.operation.time_to_first_chunk',
  'llm.time_to_first_token',
];
export const FIRST_TOKEN_EVENTS: ReadonlySet<string> = new Set([
  'ai.stream.firstChunk',
  'First Token Stream Event',
  'gen_ai.content.completion.chunk',
  'gen_ai.first_token',
  'llm.first_token',
  'first_token',
]);

function fromEvents(span: OtlpSpan): number | null {
  if (span.events.length === 0) return null;
  let earliestMs = Infinity;
  for (const event of span.events) {
    if (!FIRST_TOKEN_EVENTS.has(event.name)) continue;
    const ms = diffMillis(span.startTimeUnixNano, event.timeUnixNano);
    if (ms < earliestMs) earliestMs = ms;
  }
  // None found, or an event before the span start (clock trouble): unknown.
  return earliestMs === Infinity || earliestMs < 0 ? null : earliestMs;
}

/** `families`: the span's key families (key-families.ts); the keys of families it has none of are not looked up. */
export function timeToFirstTokenMs(span: OtlpSpan, durationMs: number, families = keyFamilies(span.attributes)): number | null {
  const a = span.attributes;
  const ms = families & AI_KEYS ? firstNumber(a, MILLISECOND_KEYS) : undefined;
  if (ms !== undefined && ms >= 0) return ms;
  const seconds = families & (GENAI_KEYS | LLM_KEYS) ? firstNumber(a, SECOND_KEYS) : undefined;
  if (seconds !== undefined && seconds >= 0) {
    const asMs = seconds * 1000;
    return durationMs > 0 && asMs > durationMs && seconds <= durationMs ? seconds : asMs;
  }
  if (families & (MASTRA_KEYS | LANGFUSE_KEYS)) return fromStartTime(span) ?? fromEvents(span);
  return fromEvents(span);
}

function fromStartTime(span: OtlpSpan): number | undefined {
  const a = span.attributes;
  for (const key of START_TIME_KEYS) {
    const at = a[key];
    const ms = typeof at === 'string' ? Date.parse(unquoteJson(at)) - nanosToMillis(span.startTimeUnixNano) : NaN;
    if (ms >= 0) return ms;
  }
  return undefined;
}
