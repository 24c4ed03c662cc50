import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorSettings } from '@aos/config';
import { silentLogger } from '@aos/log';
import { createMetrics } from '@aos/metrics';
import { createApiKey, evaluateMonitor, getMonitor, listFindings, type StoredMonitor } from '@aos/storage';
import { WEBHOOK_HEADERS, startMonitorProcessor, verifyWebhook } from '@aos/writer';
import { seedTraces } from './support/seed-traces.ts';
import type { AcknowledgedMonitor, ErrorBody, MonitorEvent, MonitorMetric, MonitorPreview, MonitorView, Page } from './support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from './support/service.ts';

let svc: TestService;
const MIN = 60_000;
// Seeded history: four 10-minute windows starting three hours ago.
const base = Math.floor((Date.now() - 3 * 60 * MIN) / MIN) * MIN;
const at = (minutes: number) => base + minutes * MIN;
// Recent traffic for the scheduled monitors: 20 minutes ago, inside a one-hour window.
const recent = Date.now() - 20 * MIN;

const hex = (n: number) => n.toString(16);
const history = [
  // [0, 10): 1 error → ok (warning at 2, alert at 3)
  { id: hex(0x100), atMs: at(2), error: true },
  { id: hex(0x101), atMs: at(3) },
  // [10, 20): 2 errors → warning
  { id: hex(0x110), atMs: at(12), error: true },
  { id: hex(0x111), atMs: at(14), error: true },
  // [20, 30): 4 errors → alert
  ...[0, 1, 2, 3].map((i) => ({ id: hex(0x120 + i), atMs: at(25) + i * 1000, error: true })),
  // [30, 40): nothing
  // [60, 70): costs per user for the grouped monitor (cost_total by user above $5)
  { id: hex(0x200), atMs: at(61), attrs: { 'user.id': 'alice', 'gen_ai.usage.cost': 4.5 } },
  { id: hex(0x201), atMs: at(62), attrs: { 'user.id': 'alice', 'gen_ai.usage.cost': 1.25 } },
  { id: hex(0x202), atMs: at(63), attrs: { 'user.id': 'bob', 'gen_ai.usage.cost': 1.5 } },
];
const recentTraces = [0, 1, 2].map((i) => ({ id: hex(0x300 + i), atMs: recent + i * 1000, durationMs: 100 * (i + 1) }));

beforeAll(async () => {
  svc = await startTestService({ MONITOR_MIN_INTERVAL_SECONDS: '1', WEBHOOK_BACKOFF_MS: '100', TRACE_QUIET_MS: '3600000', ALLOW_PRIVATE_OUTBOUND_URLS: 'true' });
  await seedTraces(svc, [...history, ...recentTraces]);
});
afterAll(async () => {
  await svc?.stop();
});

const errorMonitor = {
  name: 'errors',
  measure: 'error_count',
  windowSeconds: 600,
  intervalSeconds: 60,
  condition: { operator: 'above', threshold: 3, warningThreshold: 2, noData: 'no_data' },
  severity: 'high',
  enabled: false,
};

async function createMonitor(body: Record<string, unknown>, key?: string): Promise<StoredMonitor> {
  const res = await jsonCall<MonitorView>(svc, '/api/v1/trace-monitors', { method: 'POST', body, key });
  expect(res.status, res.text).toBe(201);
  return (await getMonitor(svc.service.storage, res.body.projectId, res.body.id))!;
}

async function events(id: string) {
  const res = await jsonCall<Page<MonitorEvent>>(svc, `/api/v1/trace-monitors/${id}/events?limit=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const storage = () => svc.service.storage;

describe('monitor state machine over seeded data', () => {
  it('moves ok → warning → alert → ok as windows cross the thresholds, one event per change', async () => {
    const monitor = await createMonitor(errorMonitor);
    for (const minute of [10, 20, 30, 31, 40]) await evaluateMonitor(storage(), monitor, at(minute));
    const list = await events(monitor.id);
    expect(list.map((e) => [e.kind, e.fromState, e.toState, e.value, e.threshold])).toEqual([
      ['state_change', 'alert', 'ok', 0, 3],
      ['state_change', 'warning', 'alert', 4, 3],
      ['state_change', 'ok', 'warning', 2, 2],
      ['state_change', null, 'ok', 1, 3],
    ]);
    expect(list[1]).toMatchObject({ windowStart: new Date(at(20)).toISOString(), windowEnd: new Date(at(30)).toISOString(), muted: false });
    // The alert raised one finding, with the window's traces as evidence.
    const found = await listFindings(storage(), { projectId: 'default', investigatorId: monitor.id }, { limit: 10 });
    expect(found.findings).toHaveLength(1);
    expect(found.findings[0]).toMatchObject({ status: 'open', severity: 'high', occurrences: 1, asset: { type: 'monitor', id: monitor.id } });
    expect(found.findings[0]!.evidence.sort()).toEqual([0x120, 0x121, 0x122, 0x123].map((n) => hex(n).padStart(32, '0')));
    // Entering alert again updates that finding instead of adding one.
    await evaluateMonitor(storage(), monitor, at(30));
    const again = await listFindings(storage(), { projectId: 'default', investigatorId: monitor.id }, { limit: 10 });
    expect(again.findings.map((f) => f.occurrences)).toEqual([2]);
  });

  it('treats a window without data by the no-data rule', async () => {
    const monitor = await createMonitor({ ...errorMonitor, name: 'latency', measure: 'latency_p95', condition: { operator: 'above', threshold: 1000 } });
    await evaluateMonitor(storage(), monitor, at(20));
    await evaluateMonitor(storage(), monitor, at(40)); // [30, 40) has no trace: no latency to judge
    await evaluateMonitor(storage(), monitor, at(41));
    expect((await events(monitor.id)).map((e) => [e.fromState, e.toState, e.value])).toEqual([
      ['ok', 'no_data', null],
      [null, 'ok', 100],
    ]);
    const kept = await createMonitor({ ...errorMonitor, name: 'kept', measure: 'latency_p95', condition: { operator: 'below', threshold: 1000, noData: 'keep' } });
    await evaluateMonitor(storage(), kept, at(20));
    await evaluateMonitor(storage(), kept, at(40));
    expect((await events(kept.id)).map((e) => e.toState)).toEqual(['alert']);
  });

  it('alerts per group: any user above $5 of cost', async () => {
    const monitor = await createMonitor({
      ...errorMonitor,
      name: 'spend per user',
      measure: 'cost_total',
      groupBy: 'user',
      windowSeconds: 3600,
      condition: { operator: 'above', threshold: 5 },
    });
    await evaluateMonitor(storage(), monitor, at(70));
    const view = (await jsonCall<MonitorView>(svc, `/api/v1/trace-monitors/${monitor.id}`)).body;
    expect(view.state).toBe('alert');
    // Traces without a user (the error traces of the window) are a group of their own.
    expect(view.groups.map((g) => [g.group, g.state, g.value])).toEqual([
      ['', 'ok', 0],
      ['alice', 'alert', 5.75],
      ['bob', 'ok', 1.5],
    ]);
    const found = await listFindings(storage(), { projectId: 'default', investigatorId: monitor.id }, { limit: 10 });
    expect(found.findings.map((f) => [f.dedupeKey, f.title])).toEqual([[`monitor:${monitor.id}:alice`, 'spend per user: cost_total above 5 for user "alice"']]);
    // An hour later every trace left the window: alice back to ok (an event), the groups retired.
    await evaluateMonitor(storage(), monitor, at(130));
    const later = (await jsonCall<MonitorView>(svc, `/api/v1/trace-monitors/${monitor.id}`)).body;
    expect(later).toMatchObject({ state: 'ok', groups: [], lastEvaluatedAt: new Date(at(130)).toISOString() });
    // Only alice's moves are news: new groups starting out ok make no event.
    expect((await events(monitor.id)).map((e) => [e.group, e.fromState, e.toState, e.value])).toEqual([
      ['alice', 'alert', 'ok', 0],
      ['alice', null, 'alert', 5.75],
    ]);
    // Back in the window, a group starts afresh.
    await evaluateMonitor(storage(), monitor, at(70));
    expect((await jsonCall<MonitorView>(svc, `/api/v1/trace-monitors/${monitor.id}`)).body.groups.map((g) => [g.group, g.state])).toEqual([
      ['', 'ok'],
      ['alice', 'alert'],
      ['bob', 'ok'],
    ]);
  });

  it('mute, unmute and acknowledge are events; muted alerts raise no finding; a new alert needs a new acknowledgement', async () => {
    const monitor = await createMonitor({ ...errorMonitor, name: 'muted errors' });
    const path = `/api/v1/trace-monitors/${monitor.id}`;
    expect((await jsonCall(svc, `${path}/acknowledge`, { method: 'POST' })).status).toBe(409); // never evaluated: nothing in alert
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const muted = await jsonCall(svc, `${path}/mute`, { method: 'POST', body: { until } });
    expect(muted.status, muted.text).toBe(200);
    expect(muted.body).toMatchObject({ muted: true, mutedUntil: until });
    expect((await jsonCall(svc, `${path}/mute`, { method: 'POST', body: { until: '2001-01-01T00:00:00Z' } })).status).toBe(400);
    await evaluateMonitor(storage(), (await getMonitor(storage(), 'default', monitor.id))!, at(30));
    let list = await events(monitor.id);
    expect(list.filter((e) => e.kind === 'state_change')).toMatchObject([{ fromState: null, toState: 'alert', muted: true }]);
    expect((await listFindings(storage(), { projectId: 'default', investigatorId: monitor.id }, { limit: 10 })).findings).toEqual([]);

    const ack = await jsonCall<AcknowledgedMonitor>(svc, `${path}/acknowledge`, { method: 'POST' });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body).toMatchObject({ state: 'alert', acknowledged: true, acknowledgedGroups: [''] });
    expect((await jsonCall<AcknowledgedMonitor>(svc, `${path}/acknowledge`, { method: 'POST' })).body.acknowledgedGroups).toEqual([]);
    expect((await jsonCall<MonitorView>(svc, `${path}/unmute`, { method: 'POST' })).body.muted).toBe(false);

    const current = (await getMonitor(storage(), 'default', monitor.id))!;
    await evaluateMonitor(storage(), current, at(30) + 1000); // still the same alert: still acknowledged
    expect((await jsonCall<MonitorView>(svc, path)).body.acknowledged).toBe(true);
    await evaluateMonitor(storage(), current, at(40)); // ok
    await evaluateMonitor(storage(), current, at(30) + 2000); // a new alert
    expect((await jsonCall<MonitorView>(svc, path)).body).toMatchObject({ state: 'alert', acknowledged: false });
    // Unmuted now: this alert raised a finding.
    expect((await listFindings(storage(), { projectId: 'default', investigatorId: monitor.id }, { limit: 10 })).findings).toHaveLength(1);

    list = await events(monitor.id);
    expect(list).toHaveLength(6);
    expect(list.slice(0, 4).map((e) => [e.kind, e.fromState, e.toState, e.muted])).toEqual([
      ['unmuted', null, null, false],
      ['acknowledged', null, null, false],
      ['muted', null, null, true],
      ['state_change', 'alert', 'ok', false],
    ]);
    // Evaluations ran at past times: their events sit at those times, the actions at now.
    expect(list.slice(4).map((e) => [e.fromState, e.toState, e.muted, e.at])).toEqual([
      ['ok', 'alert', false, new Date(at(30) + 2000).toISOString()],
      [null, 'alert', true, new Date(at(30)).toISOString()],
    ]);
    expect(list.find((e) => e.kind === 'muted')?.detail).toBe(`until ${until}`);
    // Newest first across pages too.
    const first = await jsonCall<Page<MonitorEvent>>(svc, `${path}/events?limit=4`);
    const second = await jsonCall<Page<MonitorEvent>>(svc, `${path}/events?limit=4&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((e) => e.id)).toEqual(list.map((e) => e.id));
    expect(second.body.nextCursor).toBeNull();
  });
});

describe('monitor API', () => {
  it('lists the measure catalogue with units and descriptions', async () => {
    const res = await jsonCall<{ data: MonitorMetric[] }>(svc, '/api/v1/trace-monitors/metrics');
    const byName = Object.fromEntries(res.body.data.map((m) => [m.name, m]));
    expect(byName.error_rate).toMatchObject({ unit: 'ratio' });
    expect(byName.latency_p99).toMatchObject({ unit: 'ms' });
    expect(byName.cost_total).toMatchObject({ unit: 'usd' });
    expect(byName.score_mean).toMatchObject({ unit: 'score', needsScoreName: true });
    expect(byName.flag_rate).toMatchObject({ unit: 'ratio' });
    expect(res.body.data.every((m) => m.description.length > 10)).toBe(true);
  });

  it('validates bodies with precise errors', async () => {
    const bad = async (body: unknown, field: string) => {
      const res = await jsonCall<ErrorBody>(svc, '/api/v1/trace-monitors', { method: 'POST', body: body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details.map((d) => d.field), res.text).toContain(field);
    };
    await bad({ ...errorMonitor, intervalSeconds: 0 }, 'intervalSeconds');
    await bad({ ...errorMonitor, windowSeconds: 40 * 86_400 }, 'windowSeconds');
    await bad({ ...errorMonitor, condition: { operator: 'above', threshold: 3, warningThreshold: 4 } }, 'condition.warningThreshold');
    await bad({ ...errorMonitor, measure: 'score_mean' }, 'scoreName');
    await bad({ ...errorMonitor, measure: 'nope' }, 'measure');
    await bad({ ...errorMonitor, groupBy: 'planet' }, 'groupBy');
    await bad({ ...errorMonitor, colour: 'red' }, 'colour');
    await bad({ ...errorMonitor, filter: { query: 'duration > long' } }, 'query');
    await bad({ ...errorMonitor, filter: { status: 'broken' } }, 'status');
    await bad({ ...errorMonitor, webhookUrl: 'http://127.0.0.1:1/hook' }, 'webhookSecret');
    await bad({ ...errorMonitor, webhookUrl: 'ftp://x/y', webhookSecret: 's'.repeat(20) }, 'webhookUrl');
    const patch = await createMonitor(errorMonitor);
    const res = await jsonCall(svc, `/api/v1/trace-monitors/${patch.id}`, { method: 'PATCH', body: { condition: { operator: 'above', threshold: 1, warningThreshold: 2 } } });
    expect(res.status).toBe(400);
    expect((await jsonCall(svc, '/api/v1/trace-monitors/mon_nope')).status).toBe(404);
  });

  it('changes, lists and deletes monitors within the project', async () => {
    const created = await jsonCall<MonitorView>(svc, '/api/v1/trace-monitors', { method: 'POST', body: { ...errorMonitor, name: 'to change', filter: { environment: 'prod', flag: ['loop'] } } });
    expect(created.body.filter).toEqual({ environment: 'prod', flags: ['loop'] });
    const path = `/api/v1/trace-monitors/${created.body.id}`;
    const changed = await jsonCall<MonitorView>(svc, path, { method: 'PATCH', body: { name: 'changed', condition: { operator: 'below', threshold: 1 } } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'changed', measure: 'error_count', condition: { operator: 'below', threshold: 1, warningThreshold: null, noData: 'no_data' } });
    const other = (await createApiKey(storage(), { projectId: 'elsewhere', name: 'other', scopes: ['read', 'write'] })).secret;
    expect((await jsonCall(svc, path, { key: other })).status).toBe(404);
    expect((await jsonCall(svc, path, { method: 'PATCH', body: { name: 'x' }, key: other })).status).toBe(404);
    expect((await jsonCall<Page<MonitorView>>(svc, '/api/v1/trace-monitors', { key: other })).body.data).toEqual([]);
    const page1 = await jsonCall<Page<MonitorView>>(svc, '/api/v1/trace-monitors?limit=2');
    const page2 = await jsonCall<Page<MonitorView>>(svc, `/api/v1/trace-monitors?limit=100&cursor=${page1.body.nextCursor}`);
    const ids = [...page1.body.data, ...page2.body.data].map((m) => m.id);
    expect(ids).toContain(created.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await jsonCall(svc, path, { method: 'DELETE' })).status).toBe(204);
    expect((await jsonCall(svc, path)).status).toBe(404);
  });
});

describe('scheduled evaluation', () => {
  const live = {
    name: 'live',
    measure: 'latency_p50',
    windowSeconds: 3600,
    intervalSeconds: 1,
    condition: { operator: 'above', threshold: 150, warningThreshold: 120 },
  };

  it('preview gives the value and state of the first evaluation of the saved monitor', async () => {
    const preview = await jsonCall<MonitorPreview>(svc, '/api/v1/trace-monitors/preview', { method: 'POST', body: live });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ measure: 'latency_p50', unit: 'ms', value: 200, state: 'alert' });
    const created = await jsonCall<MonitorView>(svc, '/api/v1/trace-monitors', { method: 'POST', body: live });
    const first = await eventually(async () => (await events(created.body.id)).at(-1), 20_000, 'first evaluation');
    expect([first.toState, first.value]).toEqual([preview.body.state, preview.body.value]);
    expect((await jsonCall(svc, `/api/v1/trace-monitors/${created.body.id}`, { method: 'PATCH', body: { enabled: false } })).status).toBe(200);
  });

  it('signs webhooks and retries failed deliveries with backoff', async () => {
    const received: Array<{ headers: IncomingMessage['headers']; body: string; at: number }> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body, at: Date.now() });
        // The first delivery fails: the writer must try again.
        res.writeHead(received.length === 1 ? 503 : 204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const secret = 'whsec_test_0123456789abcdef';
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const created = await jsonCall<MonitorView>(svc, '/api/v1/trace-monitors', { method: 'POST', body: { ...live, name: 'hooked', webhookUrl: url, webhookSecret: secret } });
      expect(created.status, created.text).toBe(201);
      expect(created.text).not.toContain(secret);
      expect(created.body.webhook).toEqual({ url, secretHint: '…cdef' });
      await eventually(async () => (received.length >= 2 ? true : undefined), 20_000, 'a retried delivery');
      await jsonCall(svc, `/api/v1/trace-monitors/${created.body.id}`, { method: 'PATCH', body: { enabled: false } });
      const [first, retry] = received;
      expect(retry!.body).toBe(first!.body);
      expect(retry!.headers[WEBHOOK_HEADERS.id]).toBe(first!.headers[WEBHOOK_HEADERS.id]);
      expect(retry!.at - first!.at).toBeGreaterThanOrEqual(100);
      for (const r of [first!, retry!]) {
        const timestamp = Number(r.headers[WEBHOOK_HEADERS.timestamp]);
        expect(Math.abs(timestamp - r.at / 1000)).toBeLessThan(5);
        expect(verifyWebhook(secret, timestamp, r.body, String(r.headers[WEBHOOK_HEADERS.signature]))).toBe(true);
        expect(verifyWebhook('another secret 123', timestamp, r.body, String(r.headers[WEBHOOK_HEADERS.signature]))).toBe(false);
      }
      const payload = JSON.parse(first!.body);
      expect(payload).toMatchObject({ type: 'monitor.state_changed', monitor: { id: created.body.id, name: 'hooked' }, event: { fromState: null, toState: 'alert', value: 200 } });
      const list = await jsonCall<Page<MonitorView>>(svc, '/api/v1/trace-monitors?limit=500');
      expect(list.text).not.toContain(secret);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
  // Last: it stops this service's monitor processor.
  it('evaluates each tick once with two writers, and one carries on when the other stops', async () => {
    const second = startMonitorProcessor({
      storage: storage(),
      redisUrl: svc.env.REDIS_URL!,
      prefix: svc.env.QUEUE_PREFIX!,
      concurrency: 4,
      lockDurationMs: 30_000,
      settings: monitorSettings({}),
      logger: silentLogger,
      metrics: createMetrics(),
    });
    try {
      const created = await jsonCall<MonitorView>(svc, '/api/v1/trace-monitors', { method: 'POST', body: { ...live, name: 'two writers' } });
      const first = svc.service.writer.monitors;
      await eventually(async () => ((await events(created.body.id)).length > 0 ? true : undefined));
      const total = () => first.stats.evaluations + second.stats.evaluations;
      // One monitor at 1 s: about one evaluation a second between both writers, not two.
      const expectOnePerTick = async (seconds: number) => {
        const before = total();
        const started = Date.now();
        await new Promise((r) => setTimeout(r, seconds * 1000));
        const ticks = (Date.now() - started) / 1000;
        const evaluated = total() - before;
        expect(evaluated).toBeGreaterThanOrEqual(ticks - 2);
        // Whole ticks: Date.now() can read a 4 s wait as 3.999 s, and an evaluation of the tick
        // before may end inside the window (a monitor's statements yield to requests' on the
        // embedded engine). Both writers evaluating every tick would count twice as many.
        expect(evaluated).toBeLessThanOrEqual(Math.ceil(ticks) + 1);
      };
      await expectOnePerTick(4);
      // The first writer stops; the second keeps the monitor evaluated alone.
      await first.close();
      const secondBefore = second.stats.evaluations;
      await expectOnePerTick(4);
      expect(second.stats.evaluations - secondBefore).toBeGreaterThanOrEqual(2);
      await jsonCall(svc, `/api/v1/trace-monitors/${created.body.id}`, { method: 'PATCH', body: { enabled: false } });
    } finally {
      await second.close();
    }
  });
});
