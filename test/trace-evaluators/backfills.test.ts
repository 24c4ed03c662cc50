import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import { agentTraces, traceHex } from '../support/agent-traces.ts';
import { judgeReply, startFakeOpenAI, type FakeAnswer, type FakeOpenAI } from '../support/fake-openai.ts';
import type { BackfillDryRun, BackfillRecord, ErrorBody, EvaluatorView, Page, ScoreRecord, TraceListItem } from '../support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let fake: FakeOpenAI;
let otherKey: string;
let answer: () => FakeAnswer = () => ({ reply: judgeReply(0.5) });

const DAY = 24 * 60 * 60 * 1000;
const now = Date.now();
/** 30 traces, one every two hours, ending 6 hours ago; every third has an empty output. */
const TRACES = Array.from({ length: 30 }, (_, i) => ({ traceId: traceHex(0x1000 + i), startMs: now - 6 * 3600_000 - i * 2 * 3600_000, empty: i % 3 === 0 }));
const windowAll = { startTime: new Date(now - 4 * DAY).toISOString(), endTime: new Date(now).toISOString() };

const api = <T = unknown>(path: string, init: { method?: string; body?: unknown; key?: string } = {}) => jsonCall<T>(svc, path, init);

async function create(body: Record<string, unknown>, key?: string) {
  const res = await api<EvaluatorView>('/api/v1/trace-evaluators', { method: 'POST', body, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function backfillOf(evaluatorId: string, id: string): Promise<BackfillRecord> {
  const list = await api<Page<BackfillRecord>>(`/api/v1/trace-evaluators/${evaluatorId}/backfills`);
  const found = list.body.data.find((b) => b.id === id);
  if (!found) throw new Error(`backfill ${id} is not listed`);
  return found;
}

beforeAll(async () => {
  fake = await startFakeOpenAI(() => answer());
  svc = await startTestService({ EVALUATOR_BACKFILL_CHUNK: '5', EVALUATOR_BACKOFF_MS: '10', ALLOW_PRIVATE_OUTBOUND_URLS: 'true' });
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['ingest', 'read', 'write'] })).secret;
  const body = agentTraces(TRACES.map((t) => ({ traceId: t.traceId, startNs: t.startMs * 1e6, input: `question ${t.traceId}`, output: t.empty ? '' : 'an answer' })));
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(200);
  // The other project has traces in the same window: never judged by this project's backfills.
  const other = agentTraces([0, 1, 2].map((i) => ({ traceId: traceHex(0x9000 + i), startNs: (now - 3600_000) * 1e6, input: 'q', output: '' })));
  expect((await svc.api('/api/v1/traces/otlp', { method: 'POST', key: otherKey, body: JSON.stringify(other), headers: { 'content-type': 'application/json' } })).status).toBe(200);
  await eventually(async () => ((await api<Page<TraceListItem>>(`/api/v1/traces?limit=100&startTime=${windowAll.startTime}`)).body.data.length === 30 ? true : undefined));
  await eventually(async () => ((await api<Page<TraceListItem>>('/api/v1/traces', { key: otherKey })).body.data.length === 3 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
  await fake?.close();
});

describe('backfills', () => {
  it('refuses a window longer than 31 days, and a reversed one', async () => {
    const evaluator = await create({ name: 'window', template: 'empty_output' });
    const post = (startTime: number, endTime: number) =>
      api<ErrorBody>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: { startTime, endTime, dryRun: true } });
    const long = await post(now - 31 * DAY - 1000, now);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/31 days/);
    expect((await post(now - 31 * DAY, now)).status).toBe(200);
    expect((await post(now, now - DAY)).status).toBe(400);
    expect((await api(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: { startTime: 'yesterday', endTime: now } })).status).toBe(400);
  });

  it('a dry run states the items, model calls and tokens, and starts nothing', async () => {
    const evaluator = await create({ name: 'dry', template: 'helpfulness', model: { baseUrl: fake.baseUrl, maxTokens: 100 } });
    const res = await api<BackfillDryRun>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: { ...windowAll, dryRun: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.dryRun).toBe(true);
    expect(res.body.estimate).toMatchObject({ items: 30, modelCalls: 30, maxOutputTokens: 3000 });
    expect(res.body.estimate.estimatedInputTokens).toBeGreaterThan(30 * 50);
    expect((await api<Page<BackfillRecord>>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`)).body.data).toEqual([]);
    // A narrower window, and the evaluator's filter, narrow the count.
    const narrow = await api<BackfillDryRun>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, {
      method: 'POST',
      body: { startTime: now - 6 * 3600_000 - 9 * 3600_000, endTime: now, dryRun: true },
    });
    expect(narrow.body.estimate.items).toBe(5);
  });

  it('judges every item of the window once and reports progress', async () => {
    const evaluator = await create({ name: 'empty check', template: 'empty_output' });
    const started = await api<BackfillRecord>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: windowAll });
    expect(started.status, started.text).toBe(201);
    expect(started.body).toMatchObject({ total: 30, estimate: { items: 30, modelCalls: 0 }, evaluatorVersion: 1 });
    expect(['queued', 'running']).toContain(started.body.status);
    const done = await eventually(async () => {
      const b = await backfillOf(evaluator.id, started.body.id);
      return b.status === 'completed' ? b : undefined;
    }, 30_000, 'the backfill to complete');
    expect(done).toMatchObject({ total: 30, processed: 30, failed: 0, scoresWritten: 30 });
    expect(Date.parse(done.startedAt!)).toBeLessThanOrEqual(Date.parse(done.finishedAt!));
    for (const t of TRACES.slice(0, 6)) {
      const scores = (await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${t.traceId}`)).body.data.filter((s) => s.evaluatorId === evaluator.id);
      expect(scores.map((s) => s.value)).toEqual([t.empty]);
    }
    // Cancelling a finished backfill says so.
    const cancel = await api<ErrorBody>(`/api/v1/trace-evaluators/backfills/${started.body.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.message).toMatch(/already completed/);
  });

  it('pages through span items by their keys, with the span filter and the trace filter', async () => {
    const spans = await create({ name: 'span empty', template: 'empty_output', target: 'span', spanFilter: { type: 'agent' } });
    const estimate = async (evaluator: EvaluatorView) =>
      (await api<BackfillDryRun>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: { ...windowAll, dryRun: true } })).body.estimate.items;
    expect(await estimate(spans)).toBe(30);
    expect(await estimate(await create({ name: 'llm spans', template: 'empty_output', target: 'span', spanFilter: { type: 'llm' } }))).toBe(0);
    expect(await estimate(await create({ name: 'error traces', template: 'empty_output', target: 'span', filter: { status: 'error' } }))).toBe(0);
    expect(await estimate(await create({ name: 'sessions', template: 'empty_output', target: 'session' }))).toBe(0);
    // Half of 30 by a hash of evaluator and item: outside 6..29 has odds below 1 in 5,000.
    const sampled = await estimate(await create({ name: 'half', template: 'empty_output', samplingRate: 0.5 }));
    expect(sampled).toBeGreaterThan(5);
    expect(sampled).toBeLessThan(30);
    const started = await api<BackfillRecord>(`/api/v1/trace-evaluators/${spans.id}/backfills`, { method: 'POST', body: windowAll });
    const done = await eventually(async () => {
      const b = await backfillOf(spans.id, started.body.id);
      return b.status === 'completed' ? b : undefined;
    }, 30_000, 'the span backfill');
    expect(done).toMatchObject({ total: 30, processed: 30, scoresWritten: 30 });
    const scores = (await api<Page<ScoreRecord>>(`/api/v1/trace-scores?traceId=${TRACES[3]!.traceId}`)).body.data.filter((s) => s.evaluatorId === spans.id);
    expect(scores).toMatchObject([{ spanId: '0000000000000001', value: TRACES[3]!.empty }]);
  });

  it('a model judge backfill counts failed items and stops promptly when cancelled', async () => {
    let calls = 0;
    // Slow answers; every fourth is unusable.
    answer = () => (++calls % 4 === 0 ? { reply: 'no idea', delayMs: 150 } : { reply: judgeReply(0.7), delayMs: 150 });
    const evaluator = await create({ name: 'slow judge', template: 'relevance', concurrency: 1, model: { baseUrl: fake.baseUrl } });
    const started = await api<BackfillRecord>(`/api/v1/trace-evaluators/${evaluator.id}/backfills`, { method: 'POST', body: windowAll });
    expect(started.status).toBe(201);
    await eventually(async () => ((await backfillOf(evaluator.id, started.body.id)).processed >= 8 ? true : undefined), 30_000, 'some progress');
    const cancel = await api<BackfillRecord>(`/api/v1/trace-evaluators/backfills/${started.body.id}/cancel`, { method: 'POST' });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.cancelledAt).not.toBeNull();
    expect(cancel.body.status).toBe('cancelled');
    // Within one item of the cancellation the writer stops; nothing is judged after.
    await new Promise((r) => setTimeout(r, 1000));
    const stopped = await backfillOf(evaluator.id, started.body.id);
    const callsAtStop = fake.requests.length;
    await new Promise((r) => setTimeout(r, 1000));
    const later = await backfillOf(evaluator.id, started.body.id);
    expect(later.processed).toBe(stopped.processed);
    expect(fake.requests.length).toBe(callsAtStop);
    expect(later.status).toBe('cancelled');
    expect(later.processed).toBeLessThan(30);
    expect(later.failed).toBeGreaterThan(0);
    expect(later.scoresWritten).toBe(later.processed - later.failed);
    expect((await api(`/api/v1/trace-evaluators/backfills/${started.body.id}/cancel`, { method: 'POST' })).status).toBe(409);
    // concurrency 1: the endpoint never had two of this evaluator's requests at once.
    const mine = fake.requests.slice(-later.processed);
    const overlapping = mine.filter((r) => mine.some((o) => o !== r && o.receivedAt > r.receivedAt && o.receivedAt < (r.answeredAt ?? Infinity)));
    expect(overlapping).toEqual([]);
  });

  it('stays inside the project', async () => {
    const mine = await create({ name: 'mine', template: 'empty_output' });
    const theirs = await create({ name: 'theirs', template: 'empty_output' }, otherKey);
    const started = await api<BackfillRecord>(`/api/v1/trace-evaluators/${theirs.id}/backfills`, { method: 'POST', key: otherKey, body: { ...windowAll } });
    expect(started.body.total).toBe(3);
    expect((await api(`/api/v1/trace-evaluators/${theirs.id}/backfills`)).status).toBe(404);
    expect((await api(`/api/v1/trace-evaluators/${mine.id}/backfills`, { key: otherKey })).status).toBe(404);
    expect((await api(`/api/v1/trace-evaluators/${theirs.id}/backfills`, { method: 'POST', body: windowAll })).status).toBe(404);
    expect((await api(`/api/v1/trace-evaluators/backfills/${started.body.id}/cancel`, { method: 'POST' })).status).toBe(404);
    expect((await api('/api/v1/trace-evaluators/backfills/bf_nope/cancel', { method: 'POST' })).status).toBe(404);
  });
});
