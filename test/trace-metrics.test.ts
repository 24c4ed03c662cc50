import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import type { ErrorBody } from './support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from './support/service.ts';

// GET /trace-metrics: GenAI metric points per bucket, scoped to the caller's project, validated.
let svc: TestService;
const keys: Record<string, string> = {};
const HOUR = 3_600_000;
// Two whole hours ago, so both points' buckets lie inside a one-day window ending now.
const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

interface MetricSeries {
  kind: string | null;
  unit: string | null;
  intervalSeconds: number;
  series: Array<{ group: string | null; points: Array<{ time: string; count: number; sum: number | null; min: number | null; max: number | null }> }>;
}

/** One delta token usage point per entry, through the OTLP/JSON receiver. */
async function send(key: string, points: Array<{ model: string; tokens: number; atMs: number }>) {
  const dataPoints = points.map((p) => ({
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.system', value: { stringValue: 'openai' } },
      { key: 'gen_ai.request.model', value: { stringValue: p.model } },
      { key: 'gen_ai.token.type', value: { stringValue: 'input' } },
    ],
    startTimeUnixNano: String((p.atMs - 1000) * 1e6),
    timeUnixNano: String(p.atMs * 1e6),
    count: '1',
    sum: p.tokens,
    min: p.tokens,
    max: p.tokens,
  }));
  const body = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'gen_ai.client.token.usage', unit: '{token}', histogram: { aggregationTemporality: 1, dataPoints } }] }] }] };
  const res = await svc.api('/api/v1/traces/otlp/v1/metrics', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('{}');
}

const read = (query: string, key = keys.default!) => jsonCall<MetricSeries & ErrorBody>(svc, `/api/v1/trace-metrics?${query}`, { key });
const WINDOW = `startTime=${new Date(base - HOUR).toISOString()}&endTime=${new Date(base + 3 * HOUR).toISOString()}`;

beforeAll(async () => {
  svc = await startTestService();
  keys.default = svc.key;
  keys.other = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['ingest', 'read'] })).secret;
  keys.ingestOnly = (await createApiKey(svc.service.storage, { projectId: 'default', name: 'ingest', scopes: ['ingest'] })).secret;
  await send(keys.default, [
    { model: 'gpt-4o', tokens: 100, atMs: base + 60_000 },
    { model: 'gpt-4o', tokens: 300, atMs: base + HOUR + 60_000 },
    { model: 'gpt-4o-mini', tokens: 7, atMs: base + HOUR + 120_000 },
  ]);
  await send(keys.other, [{ model: 'gpt-4o', tokens: 5000, atMs: base + 60_000 }]);
  await eventually(async () => ((await read(WINDOW + '&metric=gen_ai.client.token.usage')).body.series?.[0]?.points.length === 2 ? true : undefined));
  await eventually(async () => ((await read(WINDOW + '&metric=gen_ai.client.token.usage', keys.other)).body.series?.length === 1 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /trace-metrics', () => {
  it("reads the caller's project per bucket, with the histogram figures", async () => {
    const answer = await read(`${WINDOW}&metric=gen_ai.client.token.usage&interval=1h`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ kind: 'histogram', unit: '{token}', intervalSeconds: 3600 });
    expect(answer.body.series).toEqual([
      {
        group: null,
        points: [
          { time: new Date(base).toISOString(), count: 1, sum: 100, min: 100, max: 100 },
          { time: new Date(base + HOUR).toISOString(), count: 2, sum: 307, min: 7, max: 300 },
        ],
      },
    ]);
    const other = await read(`${WINDOW}&metric=gen_ai.client.token.usage&interval=1h`, keys.other);
    expect(other.body.series).toEqual([{ group: null, points: [{ time: new Date(base).toISOString(), count: 1, sum: 5000, min: 5000, max: 5000 }] }]);
  });

  it('groups by an attribute and filters by another (gen_ai.system read as the provider)', async () => {
    const grouped = await read(`${WINDOW}&metric=gen_ai.client.token.usage&interval=1d&groupBy=requestModel&providerName=openai`);
    expect(grouped.body.series.map((s) => [s.group, s.points.reduce((n, p) => n + (p.sum ?? 0), 0)])).toEqual([
      ['gpt-4o', 400],
      ['gpt-4o-mini', 7],
    ]);
    const filtered = await read(`${WINDOW}&metric=gen_ai.client.token.usage&requestModel=gpt-4o-mini`);
    expect(filtered.body.series.flatMap((s) => s.points.map((p) => p.sum))).toEqual([7]);
    const none = await read(`${WINDOW}&metric=gen_ai.client.operation.duration`);
    expect(none.body).toMatchObject({ kind: null, unit: null, series: [] });
  });

  it('refuses another project, a key without the read scope, and bad parameters with the field', async () => {
    expect((await read(`metric=gen_ai.client.token.usage&projectId=other`)).status).toBe(403);
    expect((await read('metric=gen_ai.client.token.usage', keys.ingestOnly)).status).toBe(403);
    const cases: Array<[string, string, RegExp]> = [
      ['', 'metric', /GenAI metric name/],
      ['metric=http.server.duration', 'metric', /gen_ai/],
      ['metric=gen_ai.client.token.usage&groupBy=prompt', 'groupBy', /must be one of operationName/],
      ['metric=gen_ai.client.token.usage&requestModel=', 'requestModel', /must not be empty/],
      ['metric=gen_ai.client.token.usage&interval=1w', 'interval', /30s, 5m, 1h, 1d/],
      ['metric=gen_ai.client.token.usage&model=gpt-4o', 'model', /unknown parameter/],
    ];
    for (const [query, field, message] of cases) {
      const answer = await read(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.details, query).toContainEqual({ field, message: expect.stringMatching(message) });
    }
    const backwards = await read(`metric=gen_ai.client.token.usage&startTime=${base}&endTime=${base - HOUR}`);
    expect(backwards.status).toBe(400);
  });
});
