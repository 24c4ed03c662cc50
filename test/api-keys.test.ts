import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type ApiKeyScope } from '@aos/storage';
import { startTestService, type TestService } from './support/service.ts';

let svc: TestService;
const keys: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService({ API_KEY_CACHE_TTL_MS: '0' });
  const make = async (projectId: string, scopes: ApiKeyScope[]) =>
    (await createApiKey(svc.service.storage, { projectId, name: scopes.join('+'), scopes })).secret;
  keys.ingest = await make('default', ['ingest']);
  keys.read = await make('default', ['read']);
  keys.write = await make('default', ['write']);
  keys.admin = await make('default', ['admin']);
  keys.otherProject = await make('other', ['ingest', 'read', 'write', 'admin']);
  keys.revoked = await make('default', ['ingest', 'read', 'write', 'admin']);
});
afterAll(async () => {
  await svc?.stop();
});

const TRACE = 'ab'.repeat(16);
const SPAN = 'cd'.repeat(8);
const MONITOR = `mon_${'0'.repeat(28)}`;
const FINDING = `fnd_${'0'.repeat(24)}`;
const EVALUATOR = `ev_${'0'.repeat(28)}`;

/** Every endpoint, the scope it needs, and a request that is otherwise valid. */
const ROUTES: Array<{ name: string; scope: ApiKeyScope; method: string; path: string; body?: string; type?: string; projectParam: boolean }> = [
  { name: 'POST /traces/otlp', scope: 'ingest', method: 'POST', path: '/api/v1/traces/otlp', body: '{}', type: 'application/json', projectParam: false },
  { name: 'POST /traces/otlp/v1/traces', scope: 'ingest', method: 'POST', path: '/api/v1/traces/otlp/v1/traces', body: '{}', type: 'application/json', projectParam: false },
  { name: 'GET /traces', scope: 'read', method: 'GET', path: '/api/v1/traces', projectParam: true },
  { name: 'GET /traces/{id}', scope: 'read', method: 'GET', path: `/api/v1/traces/${TRACE}`, projectParam: true },
  { name: 'GET /traces/{id}/spans/{id}', scope: 'read', method: 'GET', path: `/api/v1/traces/${TRACE}/spans/${SPAN}`, projectParam: true },
  { name: 'GET /api-keys', scope: 'admin', method: 'GET', path: '/api/v1/api-keys', projectParam: false },
  { name: 'POST /api-keys', scope: 'admin', method: 'POST', path: '/api/v1/api-keys', body: '{"name":"x","scopes":["read"]}', type: 'application/json', projectParam: false },
  { name: 'GET /traces/summary', scope: 'read', method: 'GET', path: '/api/v1/traces/summary', projectParam: true },
  { name: 'GET /traces/timeseries', scope: 'read', method: 'GET', path: '/api/v1/traces/timeseries?measure=trace_count', projectParam: true },
  { name: 'GET /traces/query-fields', scope: 'read', method: 'GET', path: '/api/v1/traces/query-fields', projectParam: false },
  { name: 'GET /traces/export', scope: 'read', method: 'GET', path: '/api/v1/traces/export', projectParam: true },
  { name: 'GET /traces/spans/export', scope: 'read', method: 'GET', path: '/api/v1/traces/spans/export', projectParam: true },
  { name: 'GET /traces/exports', scope: 'read', method: 'GET', path: '/api/v1/traces/exports', projectParam: true },
  { name: 'GET /traces/spans', scope: 'read', method: 'GET', path: '/api/v1/traces/spans', projectParam: true },
  { name: 'GET /traces/sessions', scope: 'read', method: 'GET', path: '/api/v1/traces/sessions', projectParam: true },
  { name: 'GET /traces/sessions/{id}', scope: 'read', method: 'GET', path: '/api/v1/traces/sessions/no-such-session', projectParam: true },
  { name: 'GET /score-configs', scope: 'read', method: 'GET', path: '/api/v1/score-configs', projectParam: true },
  { name: 'POST /score-configs', scope: 'write', method: 'POST', path: '/api/v1/score-configs', body: '{"name":"x","dataType":"boolean"}', type: 'application/json', projectParam: true },
  { name: 'PATCH /score-configs/{id}', scope: 'write', method: 'PATCH', path: '/api/v1/score-configs/scfg_unknown', body: '{"description":"x"}', type: 'application/json', projectParam: true },
  { name: 'POST /trace-scores', scope: 'write', method: 'POST', path: '/api/v1/trace-scores', body: '{"scores":[{"traceId":"' + 'ab'.repeat(16) + '","name":"x","value":1}]}', type: 'application/json', projectParam: false },
  { name: 'GET /trace-scores', scope: 'read', method: 'GET', path: `/api/v1/trace-scores?traceId=${TRACE}`, projectParam: true },
  { name: 'GET /trace-scores/summary', scope: 'read', method: 'GET', path: `/api/v1/trace-scores/summary?traceId=${TRACE}`, projectParam: true },
  { name: 'PATCH /trace-scores/{id}', scope: 'write', method: 'PATCH', path: '/api/v1/trace-scores/sc_unknown', body: '{"value":1}', type: 'application/json', projectParam: false },
  { name: 'DELETE /trace-scores/{id}', scope: 'write', method: 'DELETE', path: '/api/v1/trace-scores/sc_unknown', projectParam: false },
  { name: 'GET /trace-monitors', scope: 'read', method: 'GET', path: '/api/v1/trace-monitors', projectParam: true },
  { name: 'POST /trace-monitors', scope: 'write', method: 'POST', path: '/api/v1/trace-monitors', body: '{"name":"x","measure":"trace_count","windowSeconds":3600,"intervalSeconds":60,"condition":{"operator":"above","threshold":1}}', type: 'application/json', projectParam: true },
  { name: 'PATCH /trace-monitors/{id}', scope: 'write', method: 'PATCH', path: `/api/v1/trace-monitors/${MONITOR}`, body: '{"name":"y"}', type: 'application/json', projectParam: true },
  { name: 'DELETE /trace-monitors/{id}', scope: 'write', method: 'DELETE', path: `/api/v1/trace-monitors/${MONITOR}`, projectParam: true },
  { name: 'GET /trace-monitors/metrics', scope: 'read', method: 'GET', path: '/api/v1/trace-monitors/metrics', projectParam: false },
  { name: 'POST /trace-monitors/preview', scope: 'read', method: 'POST', path: '/api/v1/trace-monitors/preview', body: '{"name":"x","measure":"trace_count","windowSeconds":3600,"intervalSeconds":60,"condition":{"operator":"above","threshold":1}}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-monitors/{id}/events', scope: 'read', method: 'GET', path: `/api/v1/trace-monitors/${MONITOR}/events`, projectParam: true },
  { name: 'POST /trace-monitors/{id}/mute', scope: 'write', method: 'POST', path: `/api/v1/trace-monitors/${MONITOR}/mute`, body: '{}', type: 'application/json', projectParam: true },
  { name: 'POST /trace-monitors/{id}/unmute', scope: 'write', method: 'POST', path: `/api/v1/trace-monitors/${MONITOR}/unmute`, projectParam: true },
  { name: 'POST /trace-monitors/{id}/acknowledge', scope: 'write', method: 'POST', path: `/api/v1/trace-monitors/${MONITOR}/acknowledge`, projectParam: true },
  { name: 'GET /trace-findings', scope: 'read', method: 'GET', path: '/api/v1/trace-findings', projectParam: true },
  { name: 'GET /trace-findings/counts', scope: 'read', method: 'GET', path: '/api/v1/trace-findings/counts', projectParam: true },
  { name: 'GET /trace-findings/{id}', scope: 'read', method: 'GET', path: `/api/v1/trace-findings/${FINDING}`, projectParam: true },
  { name: 'PATCH /trace-findings/{id}', scope: 'write', method: 'PATCH', path: `/api/v1/trace-findings/${FINDING}`, body: '{"status":"investigating"}', type: 'application/json', projectParam: true },
  { name: 'POST /trace-findings/{id}/risk-assessment', scope: 'write', method: 'POST', path: `/api/v1/trace-findings/${FINDING}/risk-assessment`, projectParam: true },
  { name: 'GET /dead-letters', scope: 'admin', method: 'GET', path: '/api/v1/dead-letters', projectParam: false },
  { name: 'POST /dead-letters/retry', scope: 'admin', method: 'POST', path: '/api/v1/dead-letters/retry', projectParam: false },
  { name: 'POST /dead-letters/{jobId}/retry', scope: 'admin', method: 'POST', path: '/api/v1/dead-letters/1/retry', projectParam: false },
  { name: 'GET /trace-masking', scope: 'read', method: 'GET', path: '/api/v1/trace-masking', projectParam: true },
  { name: 'POST /trace-masking', scope: 'write', method: 'POST', path: '/api/v1/trace-masking', body: '{"rules":[]}', type: 'application/json', projectParam: true },
  { name: 'POST /trace-masking/test', scope: 'read', method: 'POST', path: '/api/v1/trace-masking/test', body: '{"policy":{"rules":[]},"text":"x"}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-dimensions', scope: 'read', method: 'GET', path: '/api/v1/trace-dimensions', projectParam: true },
  { name: 'POST /trace-dimensions', scope: 'write', method: 'POST', path: '/api/v1/trace-dimensions', body: '{"keys":["tier"]}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-views', scope: 'read', method: 'GET', path: '/api/v1/trace-views', projectParam: true },
  { name: 'POST /trace-views', scope: 'write', method: 'POST', path: '/api/v1/trace-views', body: '{"name":"x"}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-views/{id}', scope: 'read', method: 'GET', path: '/api/v1/trace-views/view_unknown', projectParam: true },
  { name: 'PATCH /trace-views/{id}', scope: 'write', method: 'PATCH', path: '/api/v1/trace-views/view_unknown', body: '{"name":"y"}', type: 'application/json', projectParam: true },
  { name: 'DELETE /trace-views/{id}', scope: 'write', method: 'DELETE', path: '/api/v1/trace-views/view_unknown', projectParam: true },
  { name: 'GET /trace-evaluators', scope: 'read', method: 'GET', path: '/api/v1/trace-evaluators', projectParam: true },
  { name: 'POST /trace-evaluators', scope: 'write', method: 'POST', path: '/api/v1/trace-evaluators', body: '{"name":"x","template":"empty_output"}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-evaluators/templates', scope: 'read', method: 'GET', path: '/api/v1/trace-evaluators/templates', projectParam: false },
  { name: 'GET /trace-evaluators/variables', scope: 'read', method: 'GET', path: '/api/v1/trace-evaluators/variables', projectParam: false },
  { name: 'GET /trace-evaluators/stats', scope: 'read', method: 'GET', path: '/api/v1/trace-evaluators/stats', projectParam: true },
  { name: 'GET /trace-evaluators/{id}', scope: 'read', method: 'GET', path: `/api/v1/trace-evaluators/${EVALUATOR}`, projectParam: true },
  { name: 'PATCH /trace-evaluators/{id}', scope: 'write', method: 'PATCH', path: `/api/v1/trace-evaluators/${EVALUATOR}`, body: '{"description":"x"}', type: 'application/json', projectParam: true },
  { name: 'DELETE /trace-evaluators/{id}', scope: 'write', method: 'DELETE', path: `/api/v1/trace-evaluators/${EVALUATOR}`, projectParam: true },
  { name: 'POST /trace-evaluators/{id}/run', scope: 'write', method: 'POST', path: `/api/v1/trace-evaluators/${EVALUATOR}/run`, body: `{"traceId":"${TRACE}"}`, type: 'application/json', projectParam: true },
  { name: 'POST /trace-evaluators/{id}/backfills', scope: 'write', method: 'POST', path: `/api/v1/trace-evaluators/${EVALUATOR}/backfills`, body: '{"startTime":"2026-01-01T00:00:00Z","endTime":"2026-01-02T00:00:00Z"}', type: 'application/json', projectParam: true },
  { name: 'GET /trace-evaluators/{id}/backfills', scope: 'read', method: 'GET', path: `/api/v1/trace-evaluators/${EVALUATOR}/backfills`, projectParam: true },
  { name: 'POST /trace-evaluators/backfills/{id}/cancel', scope: 'write', method: 'POST', path: `/api/v1/trace-evaluators/backfills/bf_${'0'.repeat(28)}/cancel`, projectParam: true },
];

function call(route: (typeof ROUTES)[number], key: string | null, path = route.path) {
  return svc.api(path, {
    method: route.method,
    key,
    ...(route.body ? { body: route.body, headers: { 'content-type': route.type! } } : {}),
  });
}

describe('API keys on every endpoint', () => {
  it('a revoked key stops working', async () => {
    const list = (await (await svc.api('/api/v1/api-keys')).json()) as any;
    const target = list.data.find((k: any) => k.name === 'ingest+read+write+admin' && k.projectId === 'default');
    const res = await svc.api(`/api/v1/api-keys/${target.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).revokedAt).toBeTruthy();
  });

  for (const route of ROUTES) {
    it(`${route.name}: 401 without a key, with an unknown key and with a revoked key`, async () => {
      for (const key of [null, 'aos_not-a-real-key', keys.revoked!]) {
        const res = await call(route, key);
        expect(res.status, `key ${key}`).toBe(401);
      }
    });

    it(`${route.name}: 403 for a key without the ${route.scope} scope, accepted with it`, async () => {
      const lacking = route.scope === 'ingest' ? keys.read! : keys.ingest!;
      expect((await call(route, lacking)).status).toBe(403);
      const allowed = route.scope === 'ingest' ? keys.ingest! : route.scope === 'read' ? keys.read! : keys.admin!;
      const res = await call(route, allowed);
      // Past the key check: whatever the request itself deserves, but neither 401 nor 403.
      expect([200, 201, 404, 422], await res.clone().text()).toContain(res.status);
    });

    if (route.projectParam) {
      it(`${route.name}: 403 when asking for another project's data`, async () => {
        const sep = route.path.includes('?') ? '&' : '?';
        expect((await call(route, keys.read!, `${route.path}${sep}projectId=other`)).status).toBe(403);
        expect((await call(route, keys.otherProject!, `${route.path}${sep}projectId=default`)).status).toBe(403);
      });
    }
  }

  it('key management validates its input and stays inside the project', async () => {
    const post = (body: string) =>
      svc.api('/api/v1/api-keys', { method: 'POST', key: keys.admin!, body, headers: { 'content-type': 'application/json' } });
    for (const [body, field] of [
      ['{"name":"x","scopes":["root"]}', 'scopes'],
      ['{"name":"","scopes":["read"]}', 'name'],
      ['{"name":"x","scopes":[]}', 'scopes'],
      ['{"name":"x","scopes":["read"],"projectId":"other"}', 'projectId'],
      ['not json', ''],
    ] as const) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      const error = ((await res.json()) as any).error;
      expect(error.code).toBe('invalid_request');
      if (field) expect(JSON.stringify(error.details)).toContain(field);
    }
    const created = await post('{"name":"made-by-api","scopes":["read"]}');
    expect(created.status).toBe(201);
    const key = (await created.json()) as any;
    expect(key.projectId).toBe('default');
    expect(key.secret).toMatch(/^aos_/);
    // The new key works at once, and only with its scope.
    expect((await svc.api('/api/v1/traces', { key: key.secret })).status).toBe(200);
    expect((await svc.api('/api/v1/api-keys', { key: key.secret })).status).toBe(403);
    // A key of another project cannot be revoked from this one, nor an unknown id.
    const otherList = (await (await svc.api('/api/v1/api-keys', { key: keys.otherProject! })).json()) as any;
    const otherId = otherList.data[0].id;
    expect((await svc.api(`/api/v1/api-keys/${otherId}`, { method: 'DELETE', key: keys.admin! })).status).toBe(404);
    expect((await svc.api('/api/v1/api-keys/key_unknown', { method: 'DELETE', key: keys.admin! })).status).toBe(404);
    expect((await svc.api('/api/v1/traces', { key: keys.otherProject! })).status).toBe(200);
  });

  it('errors use the one error shape, OTLP errors the google.rpc.Status shape', async () => {
    const api = await svc.api('/api/v1/traces', { key: null });
    const body = (await api.json()) as any;
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(/x-api-key/);
    expect(typeof body.error.requestId).toBe('string');
    const otlp = await svc.api('/api/v1/traces/otlp', { method: 'POST', key: null, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(otlp.status).toBe(401);
    const status = (await otlp.json()) as any;
    expect(status.code).toBe(16);
    expect(status.message).toMatch(/API key/);
  });

  it('a key sees only its own project: the same trace id in another project is not found', async () => {
    const traceId = 'ef'.repeat(16);
    const spans = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: '00000000000000aa', name: 'secret', startTimeUnixNano: String(Date.now() * 1e6), endTimeUnixNano: String(Date.now() * 1e6 + 1000) }] }] }] };
    const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', key: keys.otherProject!, body: JSON.stringify(spans), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    // Visible to the other project's key once written...
    for (let i = 0; i < 100; i++) {
      if ((await svc.api(`/api/v1/traces/${traceId}`, { key: keys.otherProject! })).status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await svc.api(`/api/v1/traces/${traceId}`, { key: keys.otherProject! })).status).toBe(200);
    // ...and never to a key of project "default".
    expect((await svc.api(`/api/v1/traces/${traceId}`, { key: keys.read! })).status).toBe(404);
    const list = (await (await svc.api('/api/v1/traces', { key: keys.read! })).json()) as any;
    expect(list.data.map((t: any) => t.traceId)).not.toContain(traceId);
  });
});
