import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { METRIC_POINT_QUEUE } from '@aos/queue';
import { limitedServicePerTest } from '../support/limited-service.ts';
import { eventually, jsonCall } from '../support/service.ts';

// The metrics receiver under the trace receiver's limits: body size after gzip, and the
// metric point queue's high-water mark.
const LIMIT = 64 * 1024;
const limited = limitedServicePerTest(METRIC_POINT_QUEUE, LIMIT);

/** An OTLP/JSON metrics body: one delta gen_ai.client.token.usage point of `tokens`, with a model name. */
function tokenUsage(tokens: number, model: string): string {
  const point = {
    attributes: [{ key: 'gen_ai.request.model', value: { stringValue: model } }],
    timeUnixNano: String(Date.now() * 1e6),
    count: '1',
    sum: tokens,
  };
  return JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'gen_ai.client.token.usage', histogram: { aggregationTemporality: 1, dataPoints: [point] } }] }] }] });
}

function postMetrics(body: string | Buffer, headers: Record<string, string> = {}) {
  return limited.svc.api('/api/v1/traces/otlp/v1/metrics', { method: 'POST', body: body as Buffer<ArrayBuffer>, headers: { 'content-type': 'application/json', ...headers } });
}

describe('OTLP metrics limits', () => {
  it('takes gzip, and refuses a body over INGEST_MAX_BODY_BYTES after inflating with 413', async () => {
    const gzipped = await postMetrics(gzipSync(tokenUsage(64, 'zipped-model')), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    await eventually(async () => {
      const answer = await jsonCall<{ series: Array<{ points: Array<{ sum: number }> }> }>(limited.svc, '/api/v1/trace-metrics?metric=gen_ai.client.token.usage&requestModel=zipped-model');
      return answer.body.series[0]?.points[0]?.sum === 64 ? true : undefined;
    });
    const big = gzipSync(tokenUsage(1, 'x'.repeat(LIMIT)));
    expect(big.length).toBeLessThan(LIMIT);
    const refused = await postMetrics(big, { 'content-encoding': 'gzip' });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ code: 8, message: expect.stringContaining(String(LIMIT)) });
  });

  it("answers 503 with Retry-After at the metric point queue's high-water mark, and accepts again once drained", async () => {
    // Jobs held back for a minute fill the queue without pausing its workers.
    const held = { projectId: 'default', receivedAtMs: Date.now(), points: [] };
    const jobs = await limited.queue.addBulk([1, 2].map(() => ({ name: 'points', data: held, opts: { delay: 60_000 } })));
    // The depth is sampled at most every 250 ms.
    await new Promise((r) => setTimeout(r, 300));
    const refused = await postMetrics(tokenUsage(1, 'gpt-4o'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(await refused.json()).toEqual({ code: 14, message: 'the ingest queue is full; retry later' });
    for (const job of jobs) await job.remove();
    await new Promise((r) => setTimeout(r, 300));
    expect((await postMetrics(tokenUsage(1, 'gpt-4o'))).status).toBe(200);
  });
});
