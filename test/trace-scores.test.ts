import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type ScoreConfig, type ScoreNameSummary } from '@aos/storage';
import { readJson, type ErrorBody, type Page, type ScoreRecord, type TraceListItem } from './support/api-types.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';

let svc: TestService;
const keys: Record<string, string> = {};
const TRACE = '5c'.repeat(16);
const SPAN = '00000000000000b1';
const PENDING_TRACE = '6d'.repeat(16);
const SESSION = 'session-scores-1';

function otlp(traceId: string, resource: Record<string, string | number>) {
  const now = Date.now() * 1e6;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: Object.entries(resource).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } })),
        },
        scopeSpans: [
          {
            spans: [
              { traceId, spanId: SPAN, name: 'root', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1e6), attributes: [{ key: 'session.id', value: { stringValue: SESSION } }] },
            ],
          },
        ],
      },
    ],
  });
}

async function ingest(traceId: string, resource: Record<string, string | number> = {}) {
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: otlp(traceId, resource) });
  expect(res.status).toBe(200);
  await eventually(async () => ((await svc.api(`/api/v1/traces/${traceId}`)).status === 200 ? true : undefined));
}

function post(scores: unknown[], key = keys.a!) {
  return svc.api('/api/v1/trace-scores', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scores }) });
}

async function list(query: string, key = keys.a!) {
  const res = await svc.api(`/api/v1/trace-scores?${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<Page<ScoreRecord>>(res)).data;
}

beforeAll(async () => {
  svc = await startTestService({ API_KEY_CACHE_TTL_MS: '0' });
  const make = async (projectId: string, scopes: ('read' | 'write' | 'ingest')[]) =>
    (await createApiKey(svc.service.storage, { projectId, name: `${projectId}-${scopes.join('+')}`, scopes })).secret;
  keys.a = await make('default', ['read', 'write']);
  keys.b = await make('default', ['read', 'write']);
  keys.readOnly = await make('default', ['read']);
  keys.other = await make('other', ['read', 'write', 'ingest']);
  // deployment 7 is a deployment of "default": its spans name it.
  await ingest(TRACE, { 'service.name': 'scored', 'deployment.id': 7 });
});
afterAll(async () => {
  await svc?.stop();
});

describe('POST /trace-scores', () => {
  it('stores trace, span and session scores and returns them with ids', async () => {
    const res = await post([
      { traceId: TRACE, spanId: null, name: 'helpfulness', value: 0.8, comment: 'good', source: 'annotation' },
      { traceId: TRACE, spanId: SPAN, name: 'tool_ok', value: true },
      { sessionId: SESSION, name: 'csat', stringValue: 'happy', source: 'end_user' },
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    const { scores } = await readJson<{ scores: ScoreRecord[] }>(res);
    expect(scores).toHaveLength(3);
    expect(scores.every((s) => typeof s.id === 'string' && s.id.startsWith('sc_'))).toBe(true);
    expect(scores.map((s) => s.dataType)).toEqual(['numeric', 'boolean', 'categorical']);
    const onTrace = await list(`traceId=${TRACE}`);
    expect(onTrace.map((s) => s.name).sort()).toEqual(['helpfulness', 'tool_ok']);
    expect(onTrace.find((s) => s.name === 'tool_ok')?.spanId).toBe(SPAN);
    expect(onTrace.find((s) => s.name === 'tool_ok')?.value).toBe(true);
    const onSession = await list(`sessionId=${SESSION}`);
    expect(onSession.map((s) => [s.name, s.stringValue, s.source])).toEqual([['csat', 'happy', 'end_user']]);
  });

  it('is all or nothing: one malformed score among 100 (value and stringValue, or neither) is a 400 that stores none and names the index', async () => {
    const scores = Array.from({ length: 100 }, (_, i) => ({ traceId: TRACE, name: `batch-${i}`, value: i }));
    scores[57] = { traceId: TRACE, name: 'batch-57', value: 1, stringValue: 'both' } as never;
    const res = await post(scores);
    expect(res.status).toBe(400);
    const { error } = await readJson<ErrorBody>(res);
    expect(error.details).toEqual([{ field: 'scores[57]', message: expect.stringMatching(/exactly one of value/) }]);
    expect((await list(`traceId=${TRACE}&limit=500`)).filter((s) => s.name.startsWith('batch-'))).toEqual([]);
    const neither = await post([{ traceId: TRACE, name: 'batch-neither' }]);
    expect(neither.status).toBe(400);
    expect((await readJson<ErrorBody>(neither)).error.details).toEqual([{ field: 'scores[0]', message: expect.stringMatching(/exactly one of value/) }]);
    const tooMany = await post(Array.from({ length: 101 }, () => ({ traceId: TRACE, name: 'x', value: 1 })));
    expect(tooMany.status).toBe(400);
    expect((await post([])).status).toBe(400);
  });

  it('refuses unknown targets with a message that says why', async () => {
    const res = await post([
      { traceId: 'ff'.repeat(16), name: 'x', value: 1 },
      { traceId: TRACE, spanId: 'ffffffffffffffff', name: 'x', value: 1 },
      { sessionId: 'no-such-session', name: 'x', value: 1 },
      { traceId: PENDING_TRACE, name: 'x', value: 1, deploymentId: 999 },
    ]);
    expect(res.status).toBe(422);
    const messages = (await readJson<ErrorBody>(res)).error.details.map((d) => d.message);
    expect(messages[0]).toMatch(/not found.*deploymentId/);
    expect(messages[1]).toMatch(/span ffffffffffffffff not found/);
    expect(messages[2]).toMatch(/session no-such-session not found/);
    expect(messages[3]).toMatch(/deployment 999 is not a deployment of this project/);
  });

  it('keeps a score for a trace that has not arrived when a deployment of the project vouches, and it joins the trace', async () => {
    const res = await post([{ traceId: PENDING_TRACE, name: 'early', value: 3, deploymentId: 7 }]);
    expect(res.status, await res.clone().text()).toBe(200);
    // Another project cannot use this project's deployment.
    const foreign = await post([{ traceId: '7e'.repeat(16), name: 'early', value: 3, deploymentId: 7 }], keys.other);
    expect(foreign.status).toBe(422);
    await ingest(PENDING_TRACE, { 'deployment.id': 7 });
    const scores = await list(`traceId=${PENDING_TRACE}`);
    expect(scores.map((s) => [s.name, s.value, s.deploymentId])).toEqual([['early', 3, 7]]);
  });

  it('adds or updates by externalId, and concurrent writes of one externalId end as one score', async () => {
    const first = await readJson<{ scores: ScoreRecord[] }>(await post([{ traceId: TRACE, name: 'judge', value: 1, externalId: 'ext-1' }]));
    const second = await readJson<{ scores: ScoreRecord[] }>(await post([{ traceId: TRACE, name: 'judge', value: 2, externalId: 'ext-1' }]));
    expect(second.scores[0]?.id).toBe(first.scores[0]?.id);
    expect(second.scores[0]?.createdAt).toBe(first.scores[0]?.createdAt);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post([{ traceId: TRACE, name: 'race', value: i, externalId: 'ext-race' }])),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const all = await list(`traceId=${TRACE}&limit=500`);
    expect(all.filter((s) => s.externalId === 'ext-1').map((s) => s.value)).toEqual([2]);
    expect(all.filter((s) => s.externalId === 'ext-race')).toHaveLength(1);
    // The same externalId twice in one request is malformed by itself: refused rather than guessed at.
    const twice = await post([
      { traceId: TRACE, name: 'dup', value: 1, externalId: 'ext-2' },
      { traceId: TRACE, name: 'dup', value: 2, externalId: 'ext-2' },
    ]);
    expect(twice.status).toBe(400);
    expect((await readJson<ErrorBody>(twice)).error.details).toEqual([{ field: 'scores[1]', message: 'scores[0] already writes this score (same id or externalId)' }]);
  });

  it('validates the body shape with 400 naming the field', async () => {
    for (const [scores, field] of [
      [[{ traceId: 'nothex', name: 'x', value: 1 }], 'traceId'],
      [[{ traceId: TRACE, name: '', value: 1 }], 'name'],
      [[{ traceId: TRACE, name: 'x', value: 'high' }], 'value'],
      [[{ traceId: TRACE, name: 'x', value: 1, source: 'robot' }], 'source'],
      [[{ traceId: TRACE, name: 'x', value: 1, colour: 'red' }], 'colour'],
    ] as const) {
      const res = await post(scores as unknown as unknown[]);
      expect(res.status, JSON.stringify(scores)).toBe(400);
      expect(JSON.stringify((await readJson<ErrorBody>(res)).error.details)).toContain(field);
    }
  });
});

describe('ownership and isolation', () => {
  it('lets only the owner change or remove a score', async () => {
    const { scores } = await readJson<{ scores: ScoreRecord[] }>(await post([{ traceId: TRACE, name: 'owned', value: 1 }], keys.a));
    const id = scores[0]!.id;
    const patchAs = (key: string, body: unknown) =>
      svc.api(`/api/v1/trace-scores/${id}`, { method: 'PATCH', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await patchAs(keys.b!, { value: 5 })).status).toBe(403);
    expect((await svc.api(`/api/v1/trace-scores/${id}`, { method: 'DELETE', key: keys.b! })).status).toBe(403);
    const viaPost = await post([{ id, name: 'owned', value: 9 }], keys.b);
    expect(viaPost.status).toBe(422);
    expect(JSON.stringify((await readJson<ErrorBody>(viaPost)).error.details)).toMatch(/another API key/);
    expect((await patchAs(keys.readOnly!, { value: 5 })).status).toBe(403);
    const patched = await patchAs(keys.a!, { value: 0.5, comment: 'revised' });
    expect(patched.status).toBe(200);
    expect((await readJson<ScoreRecord>(patched)).value).toBe(0.5);
    expect((await patchAs(keys.a!, {})).status).toBe(400);
    // Another project's key does not even see it.
    expect((await patchAs(keys.other!, { value: 1 })).status).toBe(404);
    expect(await list(`traceId=${TRACE}`, keys.other)).toEqual([]);
    expect((await svc.api(`/api/v1/trace-scores?traceId=${TRACE}&projectId=default`, { key: keys.other! })).status).toBe(403);
    expect((await svc.api(`/api/v1/trace-scores/${id}`, { method: 'DELETE', key: keys.a! })).status).toBe(200);
    expect((await list(`traceId=${TRACE}&limit=500`)).map((s) => s.id)).not.toContain(id);
    expect((await svc.api(`/api/v1/trace-scores/${id}`, { method: 'DELETE', key: keys.a! })).status).toBe(404);
  });

  it('reads need exactly one of traceId and sessionId, and page with a cursor', async () => {
    expect((await svc.api('/api/v1/trace-scores', { key: keys.a! })).status).toBe(400);
    expect((await svc.api(`/api/v1/trace-scores?traceId=${TRACE}&sessionId=${SESSION}`, { key: keys.a! })).status).toBe(400);
    const all = await list(`traceId=${TRACE}&limit=500`);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await svc.api(`/api/v1/trace-scores?traceId=${TRACE}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: keys.a! });
      const body = await readJson<Page<ScoreRecord>>(res);
      paged.push(...body.data.map((s) => s.id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((s) => s.id));
  });
});

describe('GET /trace-scores/summary', () => {
  it('gives count, mean and label counts per name, checked by hand', async () => {
    const trace = '8a'.repeat(16);
    await ingest(trace, { 'service.name': 'summary' });
    const res = await post([
      { traceId: trace, name: 'quality', value: 1 },
      { traceId: trace, name: 'quality', value: 0.5 },
      { traceId: trace, name: 'quality', value: 0 },
      { traceId: trace, name: 'passed', value: true },
      { traceId: trace, name: 'passed', value: false },
      { traceId: trace, name: 'passed', value: true },
      { traceId: trace, name: 'mood', stringValue: 'happy' },
      { traceId: trace, name: 'mood', stringValue: 'happy' },
      { traceId: trace, name: 'mood', stringValue: 'sad' },
    ]);
    expect(res.status).toBe(200);
    const body = await readJson<{ data: ScoreNameSummary[] }>(await svc.api(`/api/v1/trace-scores/summary?traceId=${trace}`, { key: keys.a! }));
    const byName = Object.fromEntries(body.data.map((s) => [s.name, s]));
    expect(byName.quality).toMatchObject({ count: 3, mean: 0.5, min: 0, max: 1 });
    expect(byName.passed?.count).toBe(3);
    expect(byName.passed?.mean).toBeCloseTo(2 / 3, 10);
    expect(byName.mood).toMatchObject({ count: 3, mean: null, labels: { happy: 2, sad: 1 } });
    // The same over a trace filter window that holds this trace (and the others).
    const windowed = await readJson<{ data: ScoreNameSummary[] }>(await svc.api('/api/v1/trace-scores/summary?startTime=' + new Date(Date.now() - 3_600_000).toISOString(), { key: keys.a! }));
    expect(windowed.data.find((s) => s.name === 'mood')).toMatchObject({ count: 3, labels: { happy: 2, sad: 1 } });
    expect((await svc.api(`/api/v1/trace-scores/summary?traceId=${trace}&startTime=2026-01-01T00:00:00Z`, { key: keys.a! })).status).toBe(400);
    // Trace-level filters (aggregated columns) apply to the summary's trace filter too.
    const ok = await svc.api('/api/v1/trace-scores/summary?status=unset&query=' + encodeURIComponent('spans >= 1'), { key: keys.a! });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await readJson<{ data: ScoreNameSummary[] }>(ok)).data.find((s) => s.name === 'mood')).toMatchObject({ count: 3 });
  });

  it('feeds the trace filters scoreName / scoreMin / scoreMax / scoreLabel', async () => {
    const traces = async (query: string) => {
      const res = await svc.api(`/api/v1/traces?${query}`, { key: keys.a! });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await readJson<Page<TraceListItem>>(res)).data.map((t) => t.traceId);
    };
    const trace = '8a'.repeat(16);
    expect(await traces('scoreName=quality')).toEqual([trace]);
    expect(await traces('scoreName=quality&scoreMin=0.9')).toEqual([trace]);
    expect(await traces('scoreName=quality&scoreMin=1.5')).toEqual([]);
    expect(await traces('scoreName=quality&scoreMax=-1')).toEqual([]);
    expect(await traces('scoreName=mood&scoreLabel=sad')).toEqual([trace]);
    expect(await traces('scoreName=mood&scoreLabel=angry')).toEqual([]);
    expect(await traces('scoreName=tool_ok')).toEqual([TRACE]); // a span score marks its trace
    for (const [query, field] of [
      ['scoreMin=1', 'scoreMin'],
      ['scoreName=quality&scoreMin=abc', 'scoreMin'],
      ['scoreName=quality&scoreMin=2&scoreMax=1', 'scoreMin'],
      ['scoreName=mood&scoreLabel=sad&scoreMin=1', 'scoreLabel'],
    ]) {
      const res = await svc.api(`/api/v1/traces?${query}`, { key: keys.a! });
      expect(res.status, query).toBe(400);
      expect(JSON.stringify((await readJson<ErrorBody>(res)).error)).toContain(field);
    }
  });
});

describe('scores against score configs', () => {
  async function config(body: unknown) {
    const res = await svc.api('/api/v1/score-configs', { method: 'POST', key: keys.a!, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(201);
    return readJson<ScoreConfig>(res);
  }

  it('validates scores of a configured name and links them to the config', async () => {
    const accuracy = await config({ name: 'cfg-accuracy', dataType: 'numeric', min: 0, max: 1 });
    await config({ name: 'cfg-verdict', dataType: 'categorical', categories: ['pass', 'fail'] });
    await config({ name: 'cfg-flag', dataType: 'boolean' });
    const bad = await post([
      { traceId: TRACE, name: 'cfg-accuracy', value: 1.5 },
      { traceId: TRACE, name: 'cfg-verdict', stringValue: 'maybe' },
      { traceId: TRACE, name: 'cfg-flag', value: 1 },
      { traceId: TRACE, name: 'cfg-accuracy', stringValue: 'high' },
    ]);
    expect(bad.status).toBe(422);
    const details = (await readJson<ErrorBody>(bad)).error.details;
    expect(details.map((d) => d.field)).toEqual(['scores[0]', 'scores[1]', 'scores[2]', 'scores[3]']);
    expect(details.every((d) => /does not fit score config/.test(d.message))).toBe(true);
    const good = await post([
      { traceId: TRACE, name: 'cfg-accuracy', value: 0.9 },
      { traceId: TRACE, name: 'cfg-verdict', stringValue: 'pass' },
      { traceId: TRACE, name: 'cfg-flag', value: false },
    ]);
    expect(good.status, await good.clone().text()).toBe(200);
    expect((await readJson<{ scores: ScoreRecord[] }>(good)).scores[0]?.configId).toBe(accuracy.id);
    // PATCH is held to the config too.
    const id = (await list(`traceId=${TRACE}&limit=500`)).find((s) => s.name === 'cfg-accuracy')?.id;
    const patched = await svc.api(`/api/v1/trace-scores/${id}`, { method: 'PATCH', key: keys.a!, headers: { 'content-type': 'application/json' }, body: '{"value":7}' });
    expect(patched.status).toBe(422);
  });

  it('an archived config takes no new scores', async () => {
    const archived = await config({ name: 'cfg-retired', dataType: 'numeric' });
    const res = await svc.api(`/api/v1/score-configs/${archived.id}`, { method: 'PATCH', key: keys.a!, headers: { 'content-type': 'application/json' }, body: '{"archived":true}' });
    expect(res.status).toBe(200);
    const refused = await post([{ traceId: TRACE, name: 'cfg-retired', value: 1 }]);
    expect(refused.status).toBe(422);
    expect(JSON.stringify((await readJson<ErrorBody>(refused)).error.details)).toMatch(/archived/);
  });
});
