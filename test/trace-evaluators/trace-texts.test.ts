import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluatorRun, EvaluatorView, TraceListItem, Page } from '../support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';

// Evaluator variables read a trace's texts as the trace API answers them: a trace whose root
// records no text (an HTTP server span) reads as its agent's or model call's.
let svc: TestService;
const api = <T = unknown>(path: string, init: { method?: string; body?: unknown } = {}) => jsonCall<T>(svc, path, init);

const FIRST = 'e1'.repeat(16);
const SECOND = 'e2'.repeat(16);
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** An HTTP root (no text) in session `sess-http`, with a text-bearing span below it. */
function httpTrace(traceId: string, startMs: number, child: { name: string; kind: 'AGENT' | 'LLM'; input: string; output: string }) {
  const ns = (ms: number) => String((startMs + ms) * 1_000_000);
  return [
    { traceId, spanId: '0000000000000001', name: 'POST /chat', kind: 2, startTimeUnixNano: ns(0), endTimeUnixNano: ns(100), attributes: [str('http.request.method', 'POST'), str('session.id', 'sess-http')] },
    {
      traceId,
      spanId: '0000000000000002',
      parentSpanId: '0000000000000001',
      name: child.name,
      startTimeUnixNano: ns(1),
      endTimeUnixNano: ns(90),
      attributes: [str('openinference.span.kind', child.kind), str('input.value', child.input), str('output.value', child.output)],
    },
  ];
}

beforeAll(async () => {
  svc = await startTestService();
  const start = Date.now() - 10 * 60_000;
  const spans = [
    ...httpTrace(FIRST, start, { name: 'support agent', kind: 'AGENT', input: 'where is order 42?', output: 'order 42 ships tomorrow' }),
    ...httpTrace(SECOND, start + 1000, { name: 'chat', kind: 'LLM', input: 'thanks!', output: 'you are welcome' }),
  ];
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }),
  });
  expect(res.status).toBe(200);
  await eventually(async () => ((await api<Page<TraceListItem>>('/api/v1/traces?limit=10')).body.data.length === 2 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

async function check(definition: Record<string, unknown>, item: Record<string, string>): Promise<unknown> {
  const created = await api<EvaluatorView>('/api/v1/trace-evaluators', { method: 'POST', body: { name: `check ${JSON.stringify(definition).slice(0, 60)}`, ...definition } });
  expect(created.status, created.text).toBe(201);
  const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${created.body.id}/run`, { method: 'POST', body: item });
  expect(run.body.status, run.text).toBe('scored');
  return run.body.scores[0]!.value;
}

describe('evaluator variables of traces whose root has no text', () => {
  it('read trace.input and trace.output from the agent or the model call', async () => {
    expect(await check({ template: 'contains', check: { value: 'where is order 42?', field: 'trace.input' } }, { traceId: FIRST })).toBe(true);
    expect(await check({ template: 'contains', check: { value: 'ships tomorrow' } }, { traceId: FIRST })).toBe(true);
    expect(await check({ template: 'empty_output' }, { traceId: SECOND })).toBe(false);
    expect(await check({ template: 'contains', check: { value: 'thanks!', field: 'trace.input' } }, { traceId: SECOND })).toBe(true);
  });

  it('read a session transcript, first input and last output from those texts', async () => {
    const transcript = 'User: where is order 42?\nAssistant: order 42 ships tomorrow\n\nUser: thanks!\nAssistant: you are welcome';
    expect(await check({ template: 'contains', target: 'session', check: { value: transcript, field: 'session.transcript', caseSensitive: true } }, { sessionId: 'sess-http' })).toBe(true);
    expect(await check({ template: 'contains', target: 'session', check: { value: 'where is order 42?', field: 'session.input' } }, { sessionId: 'sess-http' })).toBe(true);
    expect(await check({ template: 'contains', target: 'session', check: { value: 'you are welcome', field: 'session.output' } }, { sessionId: 'sess-http' })).toBe(true);
  });
});
