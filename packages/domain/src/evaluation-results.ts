/**
 * `gen_ai.evaluation.result` events (OpenTelemetry GenAI semantic conventions; as span
 * events or as log records) read as scores on the span they belong to:
 * `gen_ai.evaluation.name` (required) names the score, `gen_ai.evaluation.score.value` is
 * its number, `gen_ai.evaluation.score.label` its label, `gen_ai.evaluation.explanation`
 * its comment, and `gen_ai.response.id` the model response that was judged.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue, Attributes } from '@aos/otlp';
import { textOf, toNumber } from './attributes.ts';

export const EVALUATION_RESULT_EVENT = 'gen_ai.evaluation.result';

/** An evaluation result as a score: the writer stores it with source `telemetry`. */
export interface TelemetryScore {
  /** The same for the same event sent again, so a replay updates the score instead of adding one. */
  id: string;
  traceId: string;
  spanId: string;
  name: string;
  value: number | null;
  label: string | null;
  explanation: string;
  /** The response judged, when the event names it. */
  responseId: string | null;
  /** When the event happened, ms since the epoch. */
  timeMs: number;
}

/** One event as a span or a log record carries it. */
export interface EvaluationEvent {
  name: string;
  timeUnixNano: string;
  attributes: Attributes;
  body?: AttributeValue;
}

/**
 * The score an evaluation event stands for, or undefined for any other event and for a
 * result without a name or without both value and label (nothing to store).
 */
export function telemetryScoreOf(traceId: string, spanId: string, event: EvaluationEvent): TelemetryScore | undefined {
  if (event.name !== EVALUATION_RESULT_EVENT) return undefined;
  // The conventions put the result in attributes; a log record may carry it as its body.
  const a = isAttributes(event.body) ? { ...event.body, ...event.attributes } : event.attributes;
  const name = textOf(a, 'gen_ai.evaluation.name');
  const value = toNumber(a['gen_ai.evaluation.score.value']);
  const label = textOf(a, 'gen_ai.evaluation.score.label');
  if (name === undefined || name === '' || (value === undefined && label === undefined)) return undefined;
  const responseId = textOf(a, 'gen_ai.response.id') ?? null;
  return {
    id: telemetryScoreId(traceId, spanId, name, responseId, event.timeUnixNano),
    traceId,
    spanId,
    name,
    value: value ?? null,
    label: label ?? null,
    explanation: textOf(a, 'gen_ai.evaluation.explanation') ?? '',
    responseId,
    timeMs: Number(BigInt(event.timeUnixNano) / 1_000_000n),
  };
}

/** The scores of a span's evaluation events. */
export function telemetryScoresOf(traceId: string, spanId: string, events: readonly EvaluationEvent[]): TelemetryScore[] {
  const scores: TelemetryScore[] = [];
  for (const event of events) {
    const score = telemetryScoreOf(traceId, spanId, event);
    if (score !== undefined) scores.push(score);
  }
  return scores;
}

/**
 * Keyed by what identifies one result: the span, the evaluation, the response judged and
 * the event's time. The same event twice is one score; the same evaluation run again
 * later is a second one.
 */
function telemetryScoreId(traceId: string, spanId: string, name: string, responseId: string | null, timeUnixNano: string): string {
  const digest = createHash('sha256').update([traceId, spanId, name, responseId ?? '', timeUnixNano].join('\u0000')).digest('hex');
  return `otel-${digest.slice(0, 32)}`;
}

function isAttributes(value: AttributeValue | undefined): value is Attributes {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
