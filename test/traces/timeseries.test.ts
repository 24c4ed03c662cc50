import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
const HOUR = 3_600_000;
// Three whole hours ending at the last full hour; traces placed in the first and third.
const windowEnd = Math.floor(Date.now() / HOUR) * HOUR;
const windowStart = windowEnd - 3 * HOUR;
const WINDOW = `startTime=${new Date(windowStart).toISOString()}&endTime=${new Date(windowEnd).toISOString()}&interval=1h`;

const traces = [
  { id: 'a1', at: windowStart + 10 * 60_000, ms: 100, env: 'prod', error: false, tokens: [1000, 100] },
  { id: 'a2', at: windowStart + 20 * 60_000, ms: 300, env: 'prod', error: true, tokens: [2000, 200] },
  { id: 'a3', at: windowStart + 2 * HOUR + 5 * 60_000, ms: 200, env: 'staging', error: false, tokens: [0, 0] },
];

beforeAll(async () => {
  svc = await startTestService();
  const resourceSpans = traces.map((t) => ({
    resource: { attributes: [{ key: 'deployment.environment.name', value: { stringValue: t.env } }] },
    scopeSpans: [
      {
        spans: [
          {
            traceId: t.id.padStart(32, '0'),
            spanId: '0000000000000001',
            name: 'chat',
            startTimeUnixNano: String(t.at * 1e6),
            endTimeUnixNano: String((t.at + t.ms) * 1e6),
            status: { code: t.error ? 2 : 1 },
            attributes: [
              { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
              { key: 'gen_ai.usage.input_tokens', value: { intValue: String(t.tokens[0]) } },
              { key: 'gen_ai.usage.output_tokens', value: { intValue: String(t.tokens[1]) } },
            ],
          },
        ],
      },
    ],
  }));
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceSpans }) });
  expect(res.status).toBe(200);
  await eventually(async () => {
    const r = await svc.api(`/api/v1/traces?startTime=${new Date(windowStart).toISOString()}&endTime=${new Date(windowEnd).toISOString()}`);
    return ((await r.json()) as any).data.length === 3 ? true : undefined;
  });
});
afterAll(async () => {
  await svc?.stop();
});

async function series(query: string) {
  const res = await svc.api(`/api/v1/traces/timeseries?${WINDOW}&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as any;
}
const values = (body: any, i = 0) => body.series[i].points.map((p: any) => p.value);

describe('GET /traces/timeseries', () => {
  it('has every bucket of the window, empty ones as 0 for counts', async () => {
    const body = await series('measure=trace_count');
    expect(body.intervalSeconds).toBe(3600);
    expect(body.series[0].points.map((p: any) => Date.parse(p.time))).toEqual([windowStart, windowStart + HOUR, windowStart + 2 * HOUR]);
    expect(values(body)).toEqual([2, 0, 1]);
  });

  it('computes rates, percentiles, cost and tokens per bucket (null where nothing to average)', async () => {
    expect(values(await series('measure=error_rate'))).toEqual([0.5, null, 0]);
    expect(values(await series('measure=error_count'))).toEqual([1, 0, 0]);
    expect(values(await series('measure=tokens_total'))).toEqual([3300, 0, 0]);
    const cost = values(await series('measure=cost_total'));
    // gpt-4o: (3000 * 2.5 + 300 * 10) / 1e6 in the first hour.
    expect(cost[0]).toBe(0.0105); // rounded to 1e-10 USD: exact
    expect(cost.slice(1)).toEqual([0, 0]);
    const p50 = values(await series('measure=latency_p50'));
    expect(p50[0]).toBeCloseTo(200, 0); // median of 100 and 300
    expect(p50[1]).toBeNull();
    expect(p50[2]).toBeCloseTo(200, 0);
  });

  it('groups by a field with the top N and "other"', async () => {
    const body = await series('measure=trace_count&groupBy=environment&top=1');
    expect(body.series.map((s: any) => s.group)).toEqual(['prod', '__other__']);
    expect(values(body, 0)).toEqual([2, 0, 0]);
    expect(values(body, 1)).toEqual([0, 0, 1]);
  });

  it('takes the trace filter', async () => {
    expect(values(await series('measure=trace_count&environment=staging'))).toEqual([0, 0, 1]);
  });

  it('charts the mean of a score', async () => {
    const res = await svc.api('/api/v1/trace-scores', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        scores: [
          { traceId: 'a1'.padStart(32, '0'), name: 'quality', value: 1 },
          { traceId: 'a2'.padStart(32, '0'), name: 'quality', value: 0.5 },
          { traceId: 'a3'.padStart(32, '0'), name: 'quality', value: 0 },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(values(await series('measure=score_mean&measureScore=quality'))).toEqual([0.75, null, 0]);
  });

  it('refuses bad parameters naming them', async () => {
    for (const [query, field] of [
      ['measure=vibes', 'measure'],
      ['', 'measure'],
      ['measure=trace_count&groupBy=colour', 'groupBy'],
      ['measure=trace_count&interval=1x', 'interval'],
      ['measure=score_mean', 'measureScore'],
    ]) {
      const res = await svc.api(`/api/v1/traces/timeseries?startTime=${new Date(windowStart).toISOString()}&${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(((await res.json()) as any).error), query).toContain(field);
    }
    const tooFine = await svc.api('/api/v1/traces/timeseries?measure=trace_count&interval=1s');
    expect(tooFine.status).toBe(400);
  });
});
