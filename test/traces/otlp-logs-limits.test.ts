import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LOG_RECORD_QUEUE } from '@aos/queue';
import { limitedServicePerTest } from '../support/limited-service.ts';
import type { SpanDetail } from '../support/api-types.ts';
import { watchRedisCommands } from '../support/redis-monitor.ts';
import { eventually, jsonCall } from '../support/service.ts';

// The logs receiver under the trace receiver's limits: body size, gzip, the queue's
// high-water mark, and the project's masking policy applied before Redis.
const LIMIT = 64 * 1024;
const limited = limitedServicePerTest(LOG_RECORD_QUEUE, LIMIT);

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** An OTLP/JSON logs body: one gen_ai.user.message record for span `spanId` of trace `traceId`. */
function userMessage(traceId: string, spanId: string, content: string): string {
  const record = {
    traceId,
    spanId,
    eventName: 'gen_ai.user.message',
    timeUnixNano: String(Date.now() * 1e6),
    body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: content } }] } },
  };
  return JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] });
}

function postLogs(body: string | Buffer, headers: Record<string, string> = {}) {
  return limited.svc.api('/api/v1/traces/otlp/v1/logs', { method: 'POST', body: body as Buffer<ArrayBuffer>, headers: { 'content-type': 'application/json', ...headers } });
}

/** Sends the span the records belong to, as OTLP/JSON, and waits for its detail to satisfy `has`. */
async function sendSpanAndRead(traceId: string, spanId: string, has: (s: SpanDetail) => boolean): Promise<SpanDetail> {
  const now = Date.now() * 1e6;
  const span = { traceId, spanId, name: 'chat', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1e6), attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }] };
  const sent = await limited.svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }) });
  expect(sent.status).toBe(200);
  return eventually(async () => {
    const answer = await jsonCall<SpanDetail>(limited.svc, `/api/v1/traces/${traceId}/spans/${spanId}`);
    return answer.status === 200 && has(answer.body) ? answer.body : undefined;
  });
}

describe('OTLP logs limits', () => {
  it('takes gzip, and refuses a body over INGEST_MAX_BODY_BYTES after inflating with 413', async () => {
    const traceId = hex(1, 32);
    const gzipped = await postLogs(gzipSync(userMessage(traceId, hex(1, 16), 'zipped question')), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    await sendSpanAndRead(traceId, hex(1, 16), (s) => s.input === 'zipped question');
    const big = gzipSync(userMessage(traceId, hex(2, 16), 'x'.repeat(LIMIT)));
    expect(big.length).toBeLessThan(LIMIT);
    const refused = await postLogs(big, { 'content-encoding': 'gzip' });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ code: 8, message: expect.stringContaining(String(LIMIT)) });
  });

  it('masks records with the project policy before they reach Redis', async () => {
    const saved = await limited.svc.api('/api/v1/trace-masking', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ name: 'emails', detector: 'email', replacement: { style: 'fixed', text: '<email>' } }] }),
    });
    expect(saved.status).toBe(200);
    const watch = await watchRedisCommands();
    const commands = watch.commands;
    const traceId = hex(3, 32);
    // The policy reaches ingest through its settings cache: retry until a record comes out masked.
    const span = await eventually(async () => {
      const spanId = hex(Date.now() % 0xffff, 16);
      expect((await postLogs(userMessage(traceId, spanId, 'Mail me at jane.doe@example.com'))).status).toBe(200);
      const detail = await sendSpanAndRead(traceId, spanId, (s) => s.input !== null && s.input !== '');
      return detail.input === 'Mail me at <email>' ? detail : undefined;
    });
    watch.stop();
    expect(span.inputMessages).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Mail me at <email>' }] }]);
    // The record of the attempt that came out masked, as it was queued.
    const queued = commands.filter((c) => c.includes('Mail me at') && c.includes(span.spanId)).join('\n');
    expect(queued).toContain('<email>');
    expect(queued).not.toContain('jane.doe@example.com');
  });

  it("answers 503 with Retry-After at the log record queue's high-water mark, and accepts again once drained", async () => {
    // Jobs held back for a minute fill the queue without pausing its workers.
    const held = { projectId: 'default', receivedAtMs: Date.now(), records: [] };
    const jobs = await limited.queue.addBulk([1, 2].map(() => ({ name: 'records', data: held, opts: { delay: 60_000 } })));
    // The depth is sampled at most every 250 ms.
    await new Promise((r) => setTimeout(r, 300));
    const refused = await postLogs(userMessage(hex(100, 32), hex(1, 16), 'question'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(await refused.json()).toEqual({ code: 14, message: 'the ingest queue is full; retry later' });
    for (const job of jobs) await job.remove();
    await new Promise((r) => setTimeout(r, 300));
    expect((await postLogs(userMessage(hex(200, 32), hex(1, 16), 'again'))).status).toBe(200);
  });
});
