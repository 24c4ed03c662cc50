import { describe, expect, it } from 'vitest';
import { telemetryScoreOf, telemetryScoresOf } from './evaluation-results.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';
const event = (attributes: Record<string, string | number>, timeUnixNano = '1700000000123000000') => ({ name: 'gen_ai.evaluation.result', timeUnixNano, attributes });

describe('gen_ai.evaluation.result events as scores', () => {
  it('reads name, value, label, explanation and response id', () => {
    const score = telemetryScoreOf(TRACE, SPAN, event({
      'gen_ai.evaluation.name': 'Relevance',
      'gen_ai.evaluation.score.value': 4,
      'gen_ai.evaluation.score.label': 'relevant',
      'gen_ai.evaluation.explanation': 'Answers the question.',
      'gen_ai.response.id': 'chatcmpl-1',
    }));
    expect(score).toEqual({
      id: expect.stringMatching(/^otel-[0-9a-f]{32}$/),
      traceId: TRACE,
      spanId: SPAN,
      name: 'Relevance',
      value: 4,
      label: 'relevant',
      explanation: 'Answers the question.',
      responseId: 'chatcmpl-1',
      timeMs: 1700000000123,
    });
  });

  it('keeps one id for the same event and another for a new result', () => {
    const a = event({ 'gen_ai.evaluation.name': 'Relevance', 'gen_ai.evaluation.score.label': 'relevant' });
    expect(telemetryScoreOf(TRACE, SPAN, a)!.id).toBe(telemetryScoreOf(TRACE, SPAN, structuredClone(a))!.id);
    const later = event({ 'gen_ai.evaluation.name': 'Relevance', 'gen_ai.evaluation.score.label': 'relevant' }, '1700000009000000000');
    expect(telemetryScoreOf(TRACE, SPAN, later)!.id).not.toBe(telemetryScoreOf(TRACE, SPAN, a)!.id);
  });

  it('reads a log record whose result is its body, a numeric string as a number', () => {
    const score = telemetryScoreOf(TRACE, SPAN, { ...event({}), body: { 'gen_ai.evaluation.name': 'toxicity', 'gen_ai.evaluation.score.value': '0.02' } });
    expect([score?.name, score?.value, score?.label]).toEqual(['toxicity', 0.02, null]);
  });

  it('skips other events and results with nothing to store', () => {
    expect(telemetryScoresOf(TRACE, SPAN, [
      { name: 'gen_ai.choice', timeUnixNano: '1', attributes: { 'gen_ai.evaluation.name': 'x', 'gen_ai.evaluation.score.value': 1 } },
      event({ 'gen_ai.evaluation.score.value': 1 }),
      event({ 'gen_ai.evaluation.name': 'no score' }),
      event({ 'gen_ai.evaluation.name': 'kept', 'gen_ai.evaluation.score.value': 0 }),
    ]).map((s) => [s.name, s.value])).toEqual([['kept', 0]]);
  });
});
