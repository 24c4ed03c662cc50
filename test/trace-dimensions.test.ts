import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import { eventually, startTestService, type TestService } from './support/service.ts';
import { readJson, type DimensionList, type DimensionsAdded, type ErrorBody, type MonitorPreview, type Page, type TimeseriesBody, type TraceRecord, type TraceSummary } from './support/api-types.ts';

let svc: TestService;
let otherKey: string;
const HOUR = 3_600_000;
const windowEnd = Math.floor(Date.now() / HOUR) * HOUR;
const windowStart = windowEnd - 3 * HOUR;
const WINDOW = `startTime=${new Date(windowStart).toISOString()}&endTime=${new Date(windowEnd).toISOString()}`;

type Attr = { key: string; value: { stringValue?: string; intValue?: string } };
const str = (key: string, value: string): Attr => ({ key, value: { stringValue: value } });

/** One trace of one root span, `at` ms into the window. */
function trace(id: string, at: number, spanAttributes: Attr[], resourceAttributes: Attr[] = []) {
  const start = windowStart + at;
  return {
    resource: { attributes: resourceAttributes },
    scopeSpans: [
      {
        spans: [
          {
            traceId: id.padStart(32, '0'),
            spanId: '0000000000000001',
            name: 'agent run',
            startTimeUnixNano: String(start * 1e6),
            endTimeUnixNano: String((start + 100) * 1e6),
            attributes: spanAttributes,
          },
        ],
      },
    ],
  };
}

async function ingest(resourceSpans: unknown[]) {
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans }),
  });
  expect(res.status).toBe(200);
}

async function traceIds(query: string): Promise<string[]> {
  const res = await svc.api(`/api/v1/traces?${WINDOW}&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<Page<TraceRecord>>(res)).data.map((t) => t.traceId.replace(/^0+/, '')).sort();
}

async function addKeys(keys: unknown, key?: string) {
  return svc.api('/api/v1/trace-dimensions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ keys }),
    ...(key ? { key } : {}),
  });
}

beforeAll(async () => {
  svc = await startTestService();
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['read', 'write'] })).secret;
});
afterAll(async () => {
  await svc?.stop();
});

describe('trace dimensions', () => {
  it('starts with none, and refuses malformed keys with the field named', async () => {
    const res = await svc.api('/api/v1/trace-dimensions');
    expect(res.status).toBe(200);
    expect((await readJson<DimensionList>(res)).data).toEqual([]);
    for (const bad of [[], ['a:b'], [''], ['x'.repeat(200)], 'tier', [42]]) {
      const r = await addKeys(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect((await readJson<ErrorBody>(r)).error.details[0]!.field).toMatch(/^keys/);
    }
    const unknownField = await svc.api('/api/v1/trace-dimensions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keys: ['a'], extra: 1 }),
    });
    expect(unknownField.status).toBe(400);
  });

  it('adds keys, says which were new and that they apply to new data', async () => {
    const res = await addKeys(['tier', 'region']);
    expect(res.status).toBe(201);
    const body = await readJson<DimensionsAdded>(res);
    expect(body.added).toEqual(['tier', 'region']);
    expect(body.note).toMatch(/from now on/);
    expect(body.data.map((d) => d.key).sort()).toEqual(['region', 'tier']);
    const again = await addKeys(['tier']);
    expect(again.status).toBe(200);
    expect((await readJson<DimensionsAdded>(again)).alreadyPresent).toEqual(['tier']);
  });

  it('extracts values at ingest from attributes, metadata prefixes, metadata JSON and resources', async () => {
    await ingest([
      trace('a1', 10 * 60_000, [str('metadata.tier', 'gold'), str('plan', 'pro')], [str('region', 'eu')]),
      trace('a2', 20 * 60_000, [str('langfuse.trace.metadata.tier', 'free'), str('metadata.plan', 'basic')], [str('region', 'us')]),
      trace('a3', 2 * HOUR + 5 * 60_000, [str('metadata', '{"tier":"gold","plan":"pro"}')]),
      trace('a4', 2 * HOUR + 6 * 60_000, [str('unrelated', 'x')]),
    ]);
    await eventually(async () => ((await traceIds('limit=50')).length === 4 ? true : undefined));
    // Stored in the dimensions column, read straight from ClickHouse.
    const result = await svc.service.storage.client.query({
      query: "SELECT trace_id, dimensions FROM spans FINAL WHERE project_id = 'default' ORDER BY trace_id",
      format: 'JSONEachRow',
    });
    const rows = (await result.json()) as { trace_id: string; dimensions: Record<string, string> }[];
    expect(rows.map((r) => r.dimensions)).toEqual([{ tier: 'gold', region: 'eu' }, { tier: 'free', region: 'us' }, { tier: 'gold' }, {}]);
  });

  it('filters traces with dim=key:value, every pair having to match', async () => {
    expect(await traceIds('dim=tier:gold')).toEqual(['a1', 'a3']);
    expect(await traceIds('dim=tier:gold&dim=region:eu')).toEqual(['a1']);
    expect(await traceIds('dim=tier:platinum')).toEqual([]);
    const summary = await svc.api(`/api/v1/traces/summary?${WINDOW}&dim=region:us`);
    expect((await readJson<TraceSummary>(summary)).traceCount).toBe(1);
  });

  it('refuses dim filters that are malformed (400) or name a key that is not a dimension (422: the stored dimensions say so)', async () => {
    for (const [query, message, status] of [
      ['dim=tier', /key:value/, 400],
      ['dim=:gold', /key:value/, 400],
      ['dim=plan:pro', /not a dimension of this project/, 422],
    ] as const) {
      const res = await svc.api(`/api/v1/traces?${WINDOW}&${query}`);
      expect(res.status, query).toBe(status);
      const body = await readJson<ErrorBody>(res);
      expect(body.error.message).toMatch(message);
      expect(body.error.details[0]!.field).toMatch(/^dim/);
    }
  });

  it('groups timeseries by a dimension', async () => {
    const res = await svc.api(`/api/v1/traces/timeseries?${WINDOW}&interval=1h&measure=trace_count&groupBy=dim:tier`);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await readJson<TimeseriesBody>(res);
    expect(body.groupBy).toBe('dim:tier');
    const byGroup = Object.fromEntries(body.series.map((s) => [s.group, s.points.map((p) => p.value)]));
    expect(byGroup).toEqual({ gold: [1, 0, 1], free: [1, 0, 0], '': [0, 0, 1] });
    const unknown = await svc.api(`/api/v1/traces/timeseries?${WINDOW}&measure=trace_count&groupBy=dim:plan`);
    expect(unknown.status).toBe(422);
    expect((await readJson<ErrorBody>(unknown)).error.details[0]!.field).toBe('groupBy');
  });

  it('lets monitors and evaluators filter by a dimension, and only by one of the project', async () => {
    const post = (path: string, body: unknown) =>
      svc.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const draft = {
      name: 'gold traces',
      measure: 'trace_count',
      filter: { dim: 'tier:gold' },
      windowSeconds: 6 * 3600,
      intervalSeconds: 60,
      condition: { operator: 'above', threshold: 10 },
    };
    const preview = await post('/api/v1/trace-monitors/preview', draft);
    expect(preview.status, await preview.clone().text()).toBe(200);
    expect((await readJson<MonitorPreview>(preview)).value).toBe(2);
    const unknownMonitor = await post('/api/v1/trace-monitors/preview', { ...draft, filter: { dim: ['colour:red'] } });
    expect(unknownMonitor.status).toBe(422);
    expect((await readJson<ErrorBody>(unknownMonitor)).error.details[0]!.field).toBe('filter.dim');
    const unknownEvaluator = await post('/api/v1/trace-evaluators', { name: 'gold only', template: 'empty_output', filter: { dim: 'colour:red' } });
    expect(unknownEvaluator.status).toBe(422);
    expect((await readJson<ErrorBody>(unknownEvaluator)).error.details[0]!.field).toBe('filter.dim');
    expect((await post('/api/v1/trace-evaluators', { name: 'gold only', template: 'empty_output', filter: { dim: 'tier:gold' } })).status).toBe(201);
  });

  it('suggests metadata keys seen in recent spans that are not dimensions yet, by frequency', async () => {
    const res = await svc.api('/api/v1/trace-dimensions?discover=true');
    expect(res.status).toBe(200);
    const { suggestions } = await readJson<DimensionList>(res);
    expect(suggestions?.sampledSpans).toBe(4);
    const keys = suggestions!.keys.map((k) => k.key);
    // tier is a dimension already; plan comes from a metadata prefix and from the metadata JSON.
    expect(keys).not.toContain('tier');
    const plan = suggestions!.keys.find((k) => k.key === 'plan');
    expect(plan).toMatchObject({ spans: 2, share: 0.5 });
    expect(plan?.examples.sort()).toEqual(['basic', 'pro']);
  });

  it('applies a key added later only to spans ingested after it', async () => {
    expect((await addKeys(['plan'])).status).toBe(201);
    // Nothing left to suggest, but the sample is still counted.
    const discovered = await readJson<DimensionList>(await svc.api('/api/v1/trace-dimensions?discover=true'));
    expect(discovered.suggestions).toMatchObject({ sampledSpans: 4, keys: [] });
    expect(await traceIds('dim=plan:pro')).toEqual([]);
    await ingest([trace('a5', 2 * HOUR + 7 * 60_000, [str('metadata.plan', 'pro')])]);
    await eventually(async () => ((await traceIds('dim=plan:pro')).length === 1 ? true : undefined));
    expect(await traceIds('dim=plan:pro')).toEqual(['a5']);
  });

  it('lets a monitor group by a dimension (preview), and refuses one that is not a dimension', async () => {
    const draft = {
      name: 'traces per tier',
      measure: 'trace_count',
      groupBy: 'dim:tier',
      windowSeconds: 6 * 3600,
      intervalSeconds: 60,
      condition: { operator: 'above', threshold: 1.5 },
    };
    const res = await svc.api('/api/v1/trace-monitors/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(draft),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await readJson<MonitorPreview>(res);
    const byGroup = Object.fromEntries(body.groups.map((g) => [g.group, [g.value, g.state]]));
    expect(byGroup).toEqual({ gold: [2, 'alert'], free: [1, 'ok'], '': [2, 'alert'] });
    const unknown = await svc.api('/api/v1/trace-monitors/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...draft, groupBy: 'dim:colour' }),
    });
    expect(unknown.status).toBe(422);
    expect((await readJson<ErrorBody>(unknown)).error.details[0]!.field).toBe('groupBy');
  });

  it('keeps dimensions per project', async () => {
    const res = await svc.api('/api/v1/trace-dimensions', { key: otherKey });
    expect((await readJson<DimensionList>(res)).data).toEqual([]);
    const filtered = await svc.api(`/api/v1/traces?${WINDOW}&dim=tier:gold`, { key: otherKey });
    expect(filtered.status).toBe(422);
    expect((await addKeys(['tier'], otherKey)).status).toBe(201);
    const mine = await svc.api('/api/v1/trace-dimensions');
    expect((await readJson<DimensionList>(mine)).data.map((d) => d.key).sort()).toEqual(['plan', 'region', 'tier']);
    const theirs = await svc.api(`/api/v1/traces?${WINDOW}&dim=tier:gold`, { key: otherKey });
    expect((await readJson<Page<TraceRecord>>(theirs)).data).toEqual([]);
  });
});
