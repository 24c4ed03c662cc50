import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { agentTraces, traceHex } from '../support/agent-traces.ts';
import { devKey, startChildService, type ChildService } from '../support/child-service.ts';
import { judgeReply, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
import type { BackfillRecord, EvaluatorView, Page, TraceListItem } from '../support/api-types.ts';
import { eventually } from '../support/service.ts';
import { openStorage, storageSettingsForTest } from '../support/storage.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-backfill-crash-'));
const env = {
  DATA_DIR: dataDir,
  REDIS_URL: inject('redisUrl'),
  QUEUE_PREFIX: `backfill-crash-${randomUUID()}`,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'error',
  ALLOW_PRIVATE_OUTBOUND_URLS: 'true',
  WRITER_LOCK_DURATION_MS: '2000',
  EVALUATOR_BACKFILL_CHUNK: '4',
};
const children: ChildService[] = [];
const TRACES_STOP = Array.from({ length: 12 }, (_, i) => traceHex(0x6000 + i));
let fake: FakeOpenAI | undefined;

afterAll(async () => {
  for (const child of children) await child.kill().catch(() => {});
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const TRACES = Array.from({ length: 20 }, (_, i) => traceHex(0x5000 + i));
/** The trace a judge request is about: its prompt carries the trace's question. */
/** The data directory's development key, written by the first child service. */
let key: string | undefined;

/** A JSON call to a child service with the development key. */
async function call<T = unknown>(url: string, pathname: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> {
  key ??= devKey(dataDir);
  const res = await fetch(`${url}${pathname}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const traceOf = (prompt: string) => /question ([0-9a-f]{32})/.exec(prompt)?.[1] ?? '';

describe('a writer killed in the middle of a backfill', () => {
  it('resumes after a restart and judges no item twice', async () => {
    // Life 1: the first six judgements are answered, then the endpoint stops answering.
    let answering = 6;
    fake = await startFakeOpenAI(() => (answering-- > 0 ? { reply: judgeReply(0.9) } : { hang: true }));
    const first = await startChildService(env);
    children.push(first);
    const now = Date.now();
    const spans = agentTraces(TRACES.map((traceId, i) => ({ traceId, startNs: (now - 3600_000 - i * 60_000) * 1e6, input: `question ${traceId}`, output: 'answer' })));
    expect((await call(first.url, '/api/v1/traces/otlp', 'POST', spans)).status).toBe(200);
    await eventually(async () => ((await call<Page<TraceListItem>>(first.url, '/api/v1/traces?limit=100')).body.data.length === 20 ? true : undefined), 30_000);
    const evaluator = (
      await call<EvaluatorView>(first.url, '/api/v1/trace-evaluators', 'POST', {
        name: 'crash judge',
        template: 'helpfulness',
        concurrency: 2,
        model: { baseUrl: fake.baseUrl, timeoutMs: 600_000, maxAttempts: 1 },
      })
    ).body;
    const window = { startTime: now - 24 * 3600_000, endTime: now };
    const started = await call<BackfillRecord>(first.url, `/api/v1/trace-evaluators/${evaluator.id}/backfills`, 'POST', window);
    expect(started.status).toBe(201);
    expect(started.body.total).toBe(20);
    // Six answered (chunk 0 and half of chunk 1), two more waiting for an answer that never comes.
    await eventually(async () => (fake!.requests.length === 8 ? true : undefined), 30_000, 'eight judge requests');
    await new Promise((r) => setTimeout(r, 1500));
    const progress = (await call<Page<BackfillRecord>>(first.url, `/api/v1/trace-evaluators/${evaluator.id}/backfills`)).body.data[0];
    expect(progress).toMatchObject({ status: 'running', processed: 6 });
    await first.kill();
    const killedAt = Date.now();
    const judgedBefore = new Set(fake.requests.filter((r) => r.answeredAt !== null).map((r) => traceOf(r.messages.at(-1)!.content)));
    expect(judgedBefore.size).toBe(6);

    // Life 2: the endpoint answers again; the backfill carries on from where it was.
    fake.answer = () => ({ reply: judgeReply(0.9) });
    const second = await startChildService(env);
    children.push(second);
    const done = await eventually(async () => {
      const b = (await call<Page<BackfillRecord>>(second.url, `/api/v1/trace-evaluators/${evaluator.id}/backfills`)).body.data[0];
      return b?.status === 'completed' ? b : undefined;
    }, 60_000, 'the backfill to complete after the restart');
    expect(done).toMatchObject({ total: 20, processed: 20, failed: 0, scoresWritten: 20 });
    const after = fake.requests.filter((r) => r.receivedAt > killedAt).map((r) => traceOf(r.messages.at(-1)!.content));
    // The two cut off in flight are asked again; the six judged before the crash are not.
    expect(after.filter((t) => judgedBefore.has(t))).toEqual([]);
    expect(after).toHaveLength(14);
    expect(new Set([...judgedBefore, ...after])).toEqual(new Set(TRACES));
    await second.stop();

    // Stored once each: one item row and one score row per trace, even before merges.
    const storage = await openStorage(storageSettingsForTest(dataDir));
    try {
      const count = async (query: string) =>
        Number(((await (await storage.client.query({ query, query_params: { id: evaluator.id, bf: started.body.id }, format: 'JSONEachRow' })).json()) as Array<{ n: string }>)[0]!.n);
      expect(await count('SELECT count() AS n FROM evaluator_backfill_items WHERE backfill_id = {bf:String}')).toBe(20);
      expect(await count('SELECT count() AS n FROM scores WHERE evaluator_id = {id:String}')).toBe(20);
    } finally {
      await storage.close();
    }
  });

  it('a writer stopped gracefully hands the chunk over without judging anything twice', async () => {
    const stopFake = await startFakeOpenAI(() => ({ reply: judgeReply(0.5), delayMs: 300 }));
    try {
      const first = await startChildService(env);
      children.push(first);
      const now = Date.now();
      const spans = agentTraces(TRACES_STOP.map((traceId, i) => ({ traceId, startNs: (now - 7200_000 - i * 60_000) * 1e6, input: `question ${traceId}`, output: 'a' })));
      expect((await call(first.url, '/api/v1/traces/otlp', 'POST', spans)).status).toBe(200);
      const window = { startTime: now - 7200_000 - 3600_000, endTime: now - 7200_000 + 60_000 };
      await eventually(async () => ((await call<Page<TraceListItem>>(first.url, `/api/v1/traces?limit=100&startTime=${window.startTime}&endTime=${window.endTime}`)).body.data.length === 12 ? true : undefined), 30_000);
      const evaluator = (
        await call<EvaluatorView>(first.url, '/api/v1/trace-evaluators', 'POST', { name: 'stop judge', template: 'helpfulness', concurrency: 1, model: { baseUrl: stopFake.baseUrl } })
      ).body;
      const started = await call<BackfillRecord>(first.url, `/api/v1/trace-evaluators/${evaluator.id}/backfills`, 'POST', window);
      expect(started.body.total).toBe(12);
      await eventually(async () => (stopFake.requests.length >= 2 ? true : undefined), 30_000, 'two judgements');
      const stopping = Date.now();
      await first.stop();
      // The stop waits for the judgement in flight (300 ms), not for the rest of the chunk.
      expect(Date.now() - stopping).toBeLessThan(10_000);
      const beforeRestart = stopFake.requests.length;
      expect(beforeRestart).toBeLessThan(12);

      const second = await startChildService(env);
      children.push(second);
      const done = await eventually(async () => {
        const b = (await call<Page<BackfillRecord>>(second.url, `/api/v1/trace-evaluators/${evaluator.id}/backfills`)).body.data[0];
        return b?.status === 'completed' ? b : undefined;
      }, 60_000, 'the backfill to complete after a graceful stop');
      expect(done).toMatchObject({ total: 12, processed: 12, failed: 0, scoresWritten: 12 });
      const asked = stopFake.requests.map((r) => traceOf(r.messages.at(-1)!.content));
      expect(asked.slice().sort()).toEqual(TRACES_STOP.slice().sort());
      await second.stop();
    } finally {
      await stopFake.close();
    }
  });
});
