import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import { agentTraces, traceHex } from '../support/agent-traces.ts';
import { judgeReply, startFakeOpenAI, type FakeAnswer, type FakeOpenAI } from '../support/fake-openai.ts';
import type { EvaluatorRun, EvaluatorStats, EvaluatorTemplate, EvaluatorView, ErrorBody, ModelEvaluatorView, ModelTemplate, Finding, Page, ScoreRecord, TraceListItem, VariableDefinition } from '../support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let fake: FakeOpenAI;
let otherKey: string;
let readKey: string;
/** What the fake answers next; each test sets it. */
let answer: (prompt: string) => FakeAnswer = () => ({ reply: judgeReply(1) });

const now = Date.now();
const GOOD = traceHex(0xa1);
const BAD = traceHex(0xa2);
const SESSION_T1 = traceHex(0xb1);
const SESSION_T2 = traceHex(0xb2);
const TOOLS = traceHex(0xc1);
const DEV = traceHex(0xd1);
const SECRET = 'sk-test-0123456789abcdef';

const api = <T = unknown>(path: string, init: { method?: string; body?: unknown; key?: string } = {}) => jsonCall<T>(svc, path, init);

async function create(body: Record<string, unknown>) {
  const res = await api<EvaluatorView>('/api/v1/trace-evaluators', { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const model = () => ({ baseUrl: fake.baseUrl, model: 'judge-mini', apiKey: SECRET, timeoutMs: 2000, maxAttempts: 3 });

beforeAll(async () => {
  fake = await startFakeOpenAI((request) => {
    return answer(request.messages.map((m) => m.content).join('\n'));
  });
  svc = await startTestService({ TRACE_QUIET_MS: '300', TRACE_FLAGS_INTERVAL_MS: '200', EVALUATOR_BACKOFF_MS: '50', ALLOW_PRIVATE_OUTBOUND_URLS: 'true' });
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['read', 'write'] })).secret;
  readKey = (await createApiKey(svc.service.storage, { projectId: 'default', name: 'reader', scopes: ['read'] })).secret;
  const base = (now - 60 * 60 * 1000) * 1e6;
  const tool = (name: string, error = false) => ({
    name: `execute_tool ${name}`,
    error,
    attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': '{"q":1}' },
  });
  const body = agentTraces([
    { traceId: GOOD, startNs: base, input: 'What is the capital of France?', output: 'Paris.', resource: { 'deployment.environment.name': 'prod' }, rootAttrs: { 'metadata.expected_output': 'Paris' } },
    { traceId: BAD, startNs: base + 1e9, input: 'Email me the report', output: 'Sent to jane.doe@example.com, call 415-555-0134', resource: { 'deployment.environment.name': 'prod' }, rootDurationMs: 5000 },
    { traceId: SESSION_T1, startNs: base + 2e9, input: 'Hi, my order is late', output: 'Sorry! Let me check.', rootAttrs: { 'session.id': 'sess-1' } },
    { traceId: SESSION_T2, startNs: base + 3e9, input: 'Thanks, that fixed it', output: 'Glad to help!', rootAttrs: { 'session.id': 'sess-1' } },
    {
      traceId: TOOLS,
      startNs: base + 4e9,
      input: 'Find flights',
      output: '{"flights": 2}',
      children: [
        tool('search'),
        tool('search', true),
        tool('book', true),
        tool('pay'),
        { name: 'chat', attrs: { 'openinference.span.kind': 'LLM', 'output.value': '{"answer":"yes","confidence":0.9}' } },
        { name: 'chat', attrs: { 'openinference.span.kind': 'LLM', 'output.value': '{"answer":"maybe"}' } },
      ],
    },
    { traceId: DEV, startNs: base + 5e9, input: 'dev question', output: 'dev answer', resource: { 'deployment.environment.name': 'dev' } },
  ]);
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(200);
  await eventually(async () => ((await api<Page<TraceListItem>>('/api/v1/traces?limit=50')).body.data.length === 6 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
  await fake?.close();
});

describe('catalogue', () => {
  it('lists templates with prompt or rule, variables and output type', async () => {
    const { status, body } = await api<{ data: EvaluatorTemplate[] }>('/api/v1/trace-evaluators/templates');
    expect(status).toBe(200);
    const ids = body.data.map((t) => t.id);
    for (const id of ['hallucination', 'relevance', 'helpfulness', 'toxicity', 'correctness', 'regex_match', 'contains', 'not_contains', 'json_valid', 'json_schema', 'latency_threshold', 'cost_threshold', 'empty_output', 'pii_present', 'tool_error_rate']) {
      expect(ids).toContain(id);
    }
    const correctness = body.data.find((t): t is ModelTemplate => t.id === 'correctness')!;
    expect(correctness.prompt).toContain('{{reference}}');
    expect(correctness.variables.trace?.reference).toBe('trace.metadata["expected_output"]');
    expect(correctness.output).toEqual({ type: 'numeric', min: 0, max: 1 });
  });

  it('lists variables with their types and targets', async () => {
    const { body } = await api<{ data: VariableDefinition[] }>('/api/v1/trace-evaluators/variables');
    const byPath = Object.fromEntries(body.data.map((v) => [v.path, v]));
    expect(byPath['trace.input']).toMatchObject({ type: 'string', targets: ['trace', 'span'] });
    expect(byPath['session.transcript']?.targets).toEqual(['session']);
    expect(byPath['span.attributes']?.keyed).toBe(true);
    expect(byPath['trace.toolCalls']?.type).toBe('json');
  });
});

describe('create, change and delete', () => {
  it('refuses invalid evaluators with the field and the reason', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', template: 'nope' }, 'template'],
      [{ name: 'x', prompt: 'Judge {{answer}}', output: { type: 'boolean' }, model: { baseUrl: 'http://127.0.0.1:1/v1' } }, 'variables.answer'],
      [{ name: 'x', prompt: 'Judge {{a}}', variables: { a: 'span.output' }, output: { type: 'boolean' }, model: { baseUrl: 'http://127.0.0.1:1/v1' } }, 'variables.a'],
      [{ name: 'x', template: 'relevance' }, 'model.baseUrl'],
      [{ name: 'x', template: 'regex_match', check: { pattern: '([' } }, 'check'],
      [{ name: 'x', template: 'contains' }, 'check.value'],
      [{ name: 'x', template: 'json_schema', check: { schema: { type: 'object', $ref: '#/x' } } }, 'check'],
      [{ name: 'x', template: 'empty_output', spanFilter: { type: 'llm' } }, 'spanFilter'],
      [{ name: 'x', template: 'empty_output', filter: { startTime: '2026-01-01' } }, 'filter.startTime'],
      [{ name: 'x', template: 'empty_output', filter: { colour: 'red' } }, 'filter.colour'],
      [{ name: 'x', template: 'empty_output', filter: { query: 'cost >' } }, 'query'],
      [{ name: 'x', template: 'empty_output', samplingRate: 2 }, 'samplingRate'],
      [{ name: 'x', template: 'empty_output', surprise: 1 }, 'surprise'],
      [{ name: 'x', template: 'tool_error_rate', target: 'span', spanFilter: { type: 'banana' } }, 'type'],
    ];
    for (const [body, field] of cases) {
      const res = await api<ErrorBody>('/api/v1/trace-evaluators', { method: 'POST', body });
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(JSON.stringify(res.body.error.details), res.text).toContain(field);
    }
  });

  it('never returns the model key, only whether one is set', async () => {
    const created = (await create({ name: 'relevance judge', template: 'relevance', model: model() })) as ModelEvaluatorView;
    expect(created.model).toMatchObject({ baseUrl: fake.baseUrl, model: 'judge-mini', apiKeySet: true, apiKeyHint: '…cdef' });
    const list = await api('/api/v1/trace-evaluators');
    const one = await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`);
    for (const text of [JSON.stringify(created), list.text, one.text]) expect(text).not.toContain(SECRET);
    // A change leaves the key in place unless it is given (or removed with null).
    const changed = await api<ModelEvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', body: { description: 'v2' } });
    expect(changed.body.model.apiKeySet).toBe(true);
    const removed = await api<ModelEvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', body: { model: { apiKey: null } } });
    expect(removed.body.model).toMatchObject({ apiKeySet: false, apiKeyHint: null, baseUrl: fake.baseUrl });
  });

  it('versions every change, validates it like a creation, and deletes', async () => {
    const created = await create({ name: 'no todo', template: 'not_contains', check: { value: 'TODO' }, filter: { environment: 'prod' } });
    expect(created).toMatchObject({ version: 1, kind: 'check', target: 'trace', scoreName: 'not_contains', check: { type: 'not_contains', value: 'TODO' }, filter: { environment: 'prod' } });
    const v2 = await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', body: { check: { value: 'FIXME' }, samplingRate: 0.5 } });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, samplingRate: 0.5, check: { type: 'not_contains', value: 'FIXME' }, createdAt: created.createdAt });
    const bad = await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', body: { filter: { query: 'nonsense here' } } });
    expect(bad.status).toBe(400);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`)).body.version).toBe(2);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', body: {} })).status).toBe(400);
    // Another project's key cannot see, change or delete it.
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { key: otherKey })).status).toBe(404);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'PATCH', key: otherKey, body: { description: 'x' } })).status).toBe(404);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'DELETE', key: otherKey })).status).toBe(404);
    expect((await api<Page<EvaluatorView>>('/api/v1/trace-evaluators', { key: otherKey })).body.data).toEqual([]);
    // A read key cannot write.
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'DELETE', key: readKey })).status).toBe(403);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api<EvaluatorView>(`/api/v1/trace-evaluators/${created.id}`)).status).toBe(404);
  });

  it('paginates the list', async () => {
    for (let i = 0; i < 3; i++) await create({ name: `page ${i}`, template: 'json_valid' });
    const first = await api<Page<EvaluatorView>>('/api/v1/trace-evaluators?limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await api<Page<EvaluatorView>>(`/api/v1/trace-evaluators?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.status).toBe(200);
    expect(second.body.data[0]!.id > first.body.data[1]!.id).toBe(true);
    expect((await api<Page<EvaluatorView>>('/api/v1/trace-evaluators?cursor=garbage')).status).toBe(400);
  });
});

describe('model judges against an OpenAI-compatible endpoint', () => {
  it('scores a trace from a good answer, with the evaluator and its version on the score', async () => {
    answer = () => ({ reply: '```json\n' + judgeReply(0.8, 'mostly relevant') + '\n```' });
    const evaluator = await create({ name: 'relevance', template: 'relevance', model: model() });
    const before = fake.requests.length;
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } });
    expect(run.status, run.text).toBe(200);
    expect(run.body.status).toBe('scored');
    expect(run.body.scores[0]).toMatchObject({ traceId: GOOD, name: 'relevance', value: 0.8, source: 'eval', comment: 'mostly relevant', evaluatorId: evaluator.id, evaluatorVersion: 1 });
    const sent = fake.requests[before]!;
    expect(sent.model).toBe('judge-mini');
    expect(sent.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.messages.at(-1)!.content).toContain('What is the capital of France?');
    expect(sent.messages.at(-1)!.content).toContain('Paris.');
    expect(sent.messages[0]!.content).toContain('"score"');
    // The score is an ordinary score of the trace.
    const scores = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${GOOD}`);
    expect(scores.body.data.find((s) => s.evaluatorId === evaluator.id)).toMatchObject({ value: 0.8, source: 'eval' });
    // Judging again replaces the evaluator's score of that trace.
    answer = () => ({ reply: judgeReply(0.6) });
    await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } });
    const again = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${GOOD}`);
    expect(again.body.data.filter((s) => s.evaluatorId === evaluator.id).map((s) => s.value)).toEqual([0.6]);
  });

  it('fills a reference from metadata for correctness', async () => {
    answer = () => ({ reply: judgeReply(1) });
    const evaluator = await create({ name: 'correct', template: 'correctness', model: model() });
    const before = fake.requests.length;
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } });
    expect(run.body.status).toBe('scored');
    expect(fake.requests[before]!.messages.at(-1)!.content).toMatch(/Reference answer:\nParis\n/);
  });

  it('a malformed answer is a failed run with the reason, not a score', async () => {
    const evaluator = await create({ name: 'toxicity', template: 'toxicity', model: model() });
    for (const reply of ['I think it is fine.', judgeReply('maybe'), JSON.stringify({ verdict: true })]) {
      answer = () => ({ reply });
      const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: BAD } });
      expect(run.status).toBe(200);
      expect(run.body.status, reply).toBe('failed');
      expect(run.body.reason).toMatch(/unusable reply/);
      expect(run.body.scores).toEqual([]);
    }
    const scores = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${BAD}`);
    expect(scores.body.data.filter((s) => s.evaluatorId === evaluator.id)).toEqual([]);
  });

  it('a slow answer times out and is retried, then fails', async () => {
    answer = () => ({ reply: judgeReply(1), delayMs: 1500 });
    const evaluator = await create({ name: 'slow', template: 'helpfulness', model: { ...model(), timeoutMs: 200, maxAttempts: 2 } });
    const before = fake.requests.length;
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } });
    expect(run.body.status).toBe('failed');
    expect(run.body.reason).toMatch(/did not answer within 200 ms \(after 2 attempts\)/);
    expect(fake.requests.length - before).toBe(2);
  });

  it('retries a 429 after its Retry-After, then scores', async () => {
    let calls = 0;
    answer = () => (++calls === 1 ? { status: 429, retryAfter: '1' } : { reply: judgeReply(true, 'toxic words') });
    const evaluator = await create({ name: 'toxicity-429', template: 'toxicity', model: model() });
    const started = Date.now();
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: BAD } });
    expect(run.body.status, run.text).toBe('scored');
    expect(run.body.model?.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(run.body.scores[0]).toMatchObject({ value: true, dataType: 'boolean' });
    // A 4xx other than 429 is not retried.
    answer = () => ({ status: 401, body: '{"error":{"message":"bad key"}}' });
    const before = fake.requests.length;
    const denied = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: BAD } });
    expect(denied.body.reason).toMatch(/401/);
    expect(fake.requests.length - before).toBe(1);
  });

  it('judges a session from its transcript with a label', async () => {
    answer = () => ({ reply: judgeReply('Positive', 'thanked the agent') });
    const evaluator = await create({ name: 'sentiment', template: 'user_sentiment', target: 'session', model: model() });
    const before = fake.requests.length;
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { sessionId: 'sess-1' } });
    expect(run.body.status, run.text).toBe('scored');
    expect(run.body.scores[0]).toMatchObject({ sessionId: 'sess-1', traceId: null, stringValue: 'positive', dataType: 'categorical' });
    const prompt = fake.requests[before]!.messages.at(-1)!.content;
    expect(prompt.indexOf('my order is late')).toBeLessThan(prompt.indexOf('that fixed it'));
  });

  it('a score config of the score name is enforced on evaluator scores', async () => {
    const config = await api('/api/v1/score-configs', { method: 'POST', body: { name: 'capped', dataType: 'numeric', min: 0, max: 0.5 } });
    expect(config.status).toBe(201);
    answer = () => ({ reply: judgeReply(0.9) });
    const evaluator = await create({ name: 'capped', template: 'helpfulness', scoreName: 'capped', model: model() });
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } });
    expect(run.body.status).toBe('failed');
    expect(run.body.reason).toMatch(/score config "capped".*above the maximum 0.5/);
  });

  it('checks the run request against the target and the project', async () => {
    const evaluator = await create({ name: 'target check', template: 'empty_output' });
    const run = (body: unknown, key?: string) => api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body, ...(key ? { key } : {}) });
    expect((await run({ traceId: GOOD, spanId: '0000000000000001' })).status).toBe(400);
    expect((await run({ sessionId: 'sess-1' })).status).toBe(400);
    expect((await run({})).status).toBe(400);
    expect((await run({ traceId: 'zz' })).status).toBe(400);
    expect((await run({ traceId: traceHex(0xfff) })).status).toBe(404);
    expect((await run({ traceId: GOOD }, otherKey)).status).toBe(404);
    expect((await run({ traceId: GOOD }, readKey)).status).toBe(403);
    expect((await api('/api/v1/trace-evaluators/ev_nope/run', { method: 'POST', body: { traceId: GOOD } })).status).toBe(404);
  });
});

describe('deterministic checks', () => {
  const runCheck = async (definition: Record<string, unknown>, item: Record<string, string>) => {
    const evaluator = await create({ name: `check ${JSON.stringify(definition).slice(0, 40)}`, ...definition });
    const run = await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: item });
    expect(run.status, run.text).toBe(200);
    expect(run.body.status, run.text).toBe('scored');
    return run.body.scores[0]!;
  };

  it('text checks read the output (or the field named)', async () => {
    expect((await runCheck({ template: 'regex_match', check: { pattern: '^paris', flags: 'i' } }, { traceId: GOOD })).value).toBe(true);
    expect((await runCheck({ template: 'contains', check: { value: 'FRANCE', field: 'trace.input' } }, { traceId: GOOD })).value).toBe(true);
    expect((await runCheck({ template: 'not_contains', check: { value: 'paris' } }, { traceId: GOOD })).value).toBe(false);
    expect((await runCheck({ template: 'empty_output' }, { traceId: GOOD })).value).toBe(false);
    expect((await runCheck({ template: 'json_valid' }, { traceId: GOOD })).value).toBe(false);
    expect((await runCheck({ template: 'json_valid' }, { traceId: TOOLS })).value).toBe(true);
  });

  it('PII, latency and cost thresholds', async () => {
    const pii = await runCheck({ template: 'pii_present' }, { traceId: BAD });
    expect(pii.value).toBe(true);
    expect(pii.comment).toMatch(/email \(1\).*phone \(1\)/);
    expect(pii.comment).not.toContain('jane.doe');
    expect((await runCheck({ template: 'pii_present' }, { traceId: GOOD })).value).toBe(false);
    expect((await runCheck({ template: 'latency_threshold', check: { maxMs: 1000 } }, { traceId: BAD })).value).toBe(false);
    expect((await runCheck({ template: 'latency_threshold', check: { maxMs: 1000 } }, { traceId: GOOD })).value).toBe(true);
    expect((await runCheck({ template: 'cost_threshold', check: { maxUsd: 0 } }, { traceId: GOOD })).value).toBe(true);
  });

  it('tool-call error rate over a trace', async () => {
    const score = await runCheck({ template: 'tool_error_rate' }, { traceId: TOOLS });
    expect(score.value).toBe(0.5);
    expect(score.comment).toBe('2 of 4 tool calls failed');
  });

  it('JSON schema conformance of a span output', async () => {
    const schema = { type: 'object', required: ['answer', 'confidence'], properties: { answer: { enum: ['yes', 'no'] }, confidence: { type: 'number', maximum: 1 } } };
    const definition = { template: 'json_schema', target: 'span', spanFilter: { type: 'llm' }, check: { schema } };
    const ok = await runCheck(definition, { traceId: TOOLS, spanId: '0000000000000006' });
    expect(ok).toMatchObject({ value: true, spanId: '0000000000000006' });
    const bad = await runCheck(definition, { traceId: TOOLS, spanId: '0000000000000007' });
    expect(bad.value).toBe(false);
    expect(bad.comment).toMatch(/^2 schema violation\(s\): /);
    expect(bad.comment).toContain('/answer: not one of the allowed values');
    expect(bad.comment).toContain('/confidence: is required');
  });
});

describe('automatic runs on completed traces', () => {
  it('judges new traces that pass the filter and the sampling, once they go quiet', async () => {
    const prod = await create({ name: 'auto prod', template: 'empty_output', autoRun: true, filter: { environment: 'prod' } });
    const never = await create({ name: 'auto sampled out', template: 'empty_output', autoRun: true, samplingRate: 0 });
    const base = Date.now() * 1e6;
    const fresh = [traceHex(0xe1), traceHex(0xe2)];
    const body = agentTraces([
      { traceId: fresh[0]!, startNs: base, input: 'q', output: '', resource: { 'deployment.environment.name': 'prod' } },
      { traceId: fresh[1]!, startNs: base, input: 'q', output: 'a', resource: { 'deployment.environment.name': 'dev' } },
    ]);
    const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const score = await eventually(async () => {
      const scores = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${fresh[0]}`);
      return scores.body.data.find((s) => s.evaluatorId === prod.id);
    }, 30_000, 'the automatic score');
    expect(score).toMatchObject({ value: true, source: 'eval', evaluatorVersion: 1 });
    // The dev trace is outside the filter; the sampled-out evaluator judged nothing.
    await new Promise((r) => setTimeout(r, 1000));
    const dev = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${fresh[1]}`);
    expect(dev.body.data.filter((s) => s.evaluatorId === prod.id)).toEqual([]);
    for (const id of fresh) {
      const scores = await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${id}`);
      expect(scores.body.data.filter((s) => s.evaluatorId === never.id)).toEqual([]);
    }
  });
});

describe('findings', () => {
  const findingsOf = async (evaluatorId: string) =>
    (await api<Page<Finding>>(`/api/v1/trace-findings?investigator=evaluator&investigatorId=${evaluatorId}`)).body.data;

  it('items failing a check gather in one finding per evaluator; passing items raise nothing', async () => {
    const evaluator = await create({ name: 'findings: pii', template: 'pii_present' });
    const run = (traceId: string) => api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId } });
    expect((await run(GOOD)).body.scores[0]?.value).toBe(false); // no PII: passes
    expect(await findingsOf(evaluator.id)).toEqual([]);
    expect((await run(BAD)).body.scores[0]?.value).toBe(true); // PII found: fails
    expect((await run(BAD)).body.status).toBe('scored');
    const [finding, ...more] = await findingsOf(evaluator.id);
    expect(more).toEqual([]);
    expect(finding).toMatchObject({
      status: 'open',
      occurrences: 2,
      investigator: { kind: 'evaluator', id: evaluator.id },
      asset: { type: 'evaluator', id: evaluator.id },
      evidence: [BAD],
    });
  });

  it('items an evaluator cannot judge raise a finding of their own', async () => {
    const evaluator = await create({ name: 'findings: broken judge', template: 'toxicity', model: model() });
    answer = () => ({ reply: 'no idea' });
    expect((await api<EvaluatorRun>(`/api/v1/trace-evaluators/${evaluator.id}/run`, { method: 'POST', body: { traceId: GOOD } })).body.status).toBe('failed');
    const findings = await findingsOf(evaluator.id);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.title).toMatch(/cannot judge/);
    expect(findings[0]?.description).toMatch(/unusable reply/);
  });
});

describe('stats', () => {
  it('label counts and mean score per evaluator and bucket', async () => {
    answer = () => ({ reply: judgeReply('negative') });
    const labels = await create({ name: 'stats labels', template: 'user_sentiment', target: 'trace', model: model() });
    for (const traceId of [GOOD, BAD]) await api<EvaluatorRun>(`/api/v1/trace-evaluators/${labels.id}/run`, { method: 'POST', body: { traceId } });
    answer = () => ({ reply: judgeReply('positive') });
    await api<EvaluatorRun>(`/api/v1/trace-evaluators/${labels.id}/run`, { method: 'POST', body: { traceId: TOOLS } });
    const numbers = await create({ name: 'stats numbers', template: 'tool_error_rate' });
    for (const traceId of [TOOLS, GOOD]) await api<EvaluatorRun>(`/api/v1/trace-evaluators/${numbers.id}/run`, { method: 'POST', body: { traceId } });

    const start = new Date(Date.now() - 3600_000).toISOString();
    const end = new Date(Date.now() + 3600_000).toISOString();
    const stats = await api<EvaluatorStats>(`/api/v1/trace-evaluators/stats?startTime=${start}&endTime=${end}&interval=1d`);
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.intervalSeconds).toBe(86400);
    const byId = Object.fromEntries(stats.body.data.map((s) => [s.evaluatorId, s]));
    const sum = (id: string) =>
      byId[id]!.buckets.reduce(
        (acc, b) => ({ count: acc.count + b.count, labels: { ...acc.labels, ...b.labels }, means: b.mean === null ? acc.means : [...acc.means, b.mean] }),
        { count: 0, labels: {} as Record<string, number>, means: [] as number[] },
      );
    expect(byId[labels.id]?.name).toBe('stats labels');
    expect(sum(labels.id)).toMatchObject({ count: 3, labels: { negative: 2, positive: 1 } });
    expect(sum(numbers.id).count).toBe(2);
    expect(sum(numbers.id).means[0]).toBeCloseTo(0.25);
    const one = await api<EvaluatorStats>(`/api/v1/trace-evaluators/stats?evaluatorId=${numbers.id}`);
    expect(one.body.data.map((s) => s.evaluatorId)).toEqual([numbers.id]);
    expect((await api<EvaluatorStats>('/api/v1/trace-evaluators/stats', { key: otherKey })).body.data).toEqual([]);
    expect((await api('/api/v1/trace-evaluators/stats?interval=1x')).status).toBe(400);
  });
});
