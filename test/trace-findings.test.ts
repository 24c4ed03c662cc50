import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, raiseFinding, type RaiseFindingInput } from '@aos/storage';
import { seedTraces, type SeedTrace } from './support/seed-traces.ts';
import type { ErrorBody, Finding, FindingDetail, Page } from './support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from './support/service.ts';

/** POST /trace-findings/{id}/risk-assessment answers with the assessment stored on the finding. */
type Assessment = NonNullable<Finding['riskAssessment']>;

let svc: TestService;
const DAY = 86_400_000;
const now = Date.now();
const t = (n: number) => n.toString(16).padStart(32, '0');

// Evidence for the risk assessment: 4 traces, 3 users, 2 sessions, $2 + $3 + $4 + $3 = $12.
const evidenceTraces: SeedTrace[] = [
  { id: t(0x501), atMs: now - 60 * 60_000, attrs: { 'user.id': 'u1', 'session.id': 's1', 'gen_ai.usage.cost': 2.0 } },
  { id: t(0x502), atMs: now - 59 * 60_000, attrs: { 'user.id': 'u2', 'session.id': 's1', 'gen_ai.usage.cost': 3.0 } },
  { id: t(0x503), atMs: now - 58 * 60_000, attrs: { 'user.id': 'u3', 'session.id': 's2', 'gen_ai.usage.cost': 4.0 } },
  { id: t(0x504), atMs: now - 57 * 60_000, attrs: { 'user.id': 'u3', 'gen_ai.usage.cost': 3.0 } },
];

beforeAll(async () => {
  svc = await startTestService({ TRACE_QUIET_MS: '300', TRACE_FLAGS_INTERVAL_MS: '300' });
  await seedTraces(svc, evidenceTraces);
});
afterAll(async () => {
  await svc?.stop();
});

const storage = () => svc.service.storage;
const detection = (over: Partial<RaiseFindingInput> = {}): RaiseFindingInput => ({
  projectId: 'default',
  dedupeKey: 'evaluator:ev_1:trace:abc',
  title: 'Hallucinated refund policy',
  description: 'first',
  severity: 'medium',
  investigator: { kind: 'evaluator', id: 'ev_1' },
  asset: { type: 'trace', id: 'abc' },
  evidence: ['abc'],
  ...over,
});

describe('raiseFinding', () => {
  it('updates one open finding for repeated detections, and opens a new one once it is closed', async () => {
    const first = await raiseFinding(storage(), detection());
    const second = await raiseFinding(storage(), detection({ description: 'second', severity: 'high', evidence: ['abc/0000000000000002', 'abc'] }));
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.finding).toMatchObject({
      id: first.finding.id,
      occurrences: 2,
      description: 'second',
      severity: 'high',
      evidence: ['abc/0000000000000002', 'abc'],
    });
    // Concurrent raises of a new key end as one finding.
    const burst = await Promise.all([1, 2, 3].map(() => raiseFinding(storage(), detection({ dedupeKey: 'burst', asset: { type: 'trace', id: 'def' } }))));
    expect(new Set(burst.map((b) => b.finding.id)).size).toBe(1);
    const listed = await jsonCall<Page<Finding>>(svc, `/api/v1/trace-findings?investigator=evaluator&limit=100`);
    expect(listed.body.data.filter((f) => f.dedupeKey === 'burst').map((f) => f.occurrences)).toEqual([3]);

    expect((await jsonCall(svc, `/api/v1/trace-findings/${first.finding.id}`, { method: 'PATCH', body: { status: 'resolved' } })).status).toBe(200);
    const third = await raiseFinding(storage(), detection({ description: 'after resolve' }));
    expect(third.created).toBe(true);
    expect(third.finding.id).not.toBe(first.finding.id);
    const same = await jsonCall<Page<Finding>>(svc, `/api/v1/trace-findings?assetType=trace&assetId=abc`);
    expect(same.body.data.map((f) => [f.id, f.status])).toEqual([
      [third.finding.id, 'open'],
      [first.finding.id, 'resolved'],
    ]);
  });
});

describe('finding API', () => {
  it('validates status moves and records who changed what', async () => {
    const { finding } = await raiseFinding(storage(), detection({ dedupeKey: 'moves', asset: { type: 'session', id: 's1' } }));
    const path = `/api/v1/trace-findings/${finding.id}`;
    const patch = (body: unknown) => jsonCall<FindingDetail>(svc, path, { method: 'PATCH', body: body });
    expect((await patch({ status: 'investigating', assignee: 'dana@example.com' })).body).toMatchObject({ status: 'investigating', assignee: 'dana@example.com' });
    expect((await patch({ status: 'resolved' })).status).toBe(200);
    const refused = await jsonCall<ErrorBody>(svc, path, { method: 'PATCH', body: { status: 'investigating' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/a resolved finding cannot become investigating; allowed: open/);
    expect((await patch({ status: 'open' })).body.status).toBe('open'); // reopened
    expect((await patch({ assignee: null })).body.assignee).toBeNull();
    for (const bad of [{}, { status: 'closed' }, { title: 'x' }, { assignee: '' }]) expect((await patch(bad)).status, JSON.stringify(bad)).toBe(400);
    const detail = await jsonCall<FindingDetail>(svc, path);
    expect(detail.body.history.map((h) => [h.field, h.from, h.to])).toEqual([
      ['status', 'open', 'investigating'],
      ['assignee', null, 'dana@example.com'],
      ['status', 'investigating', 'resolved'],
      ['status', 'resolved', 'open'],
      ['assignee', 'dana@example.com', null],
    ]);
    expect(detail.body.history.every((h) => /^key_/.test(h.actor))).toBe(true);
    expect((await jsonCall(svc, '/api/v1/trace-findings/fnd_nope')).status).toBe(404);
  });

  it('filters, paginates and counts by status and severity', async () => {
    for (const [key, severity] of [['c1', 'low'], ['c2', 'critical'], ['c3', 'critical']] as const) {
      await raiseFinding(storage(), detection({ dedupeKey: key, severity, investigator: { kind: 'person', id: 'qa' }, asset: { type: 'project', id: 'default' } }));
    }
    const critical = await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings?investigator=person&severity=critical');
    expect(critical.body.data.map((f) => f.dedupeKey).sort()).toEqual(['c2', 'c3']);
    const both = await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings?investigator=person&severity=critical&severity=low&status=open');
    expect(both.body.data).toHaveLength(3);
    const p1 = await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings?investigator=person&limit=2');
    const p2 = await jsonCall<Page<Finding>>(svc, `/api/v1/trace-findings?investigator=person&limit=2&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.data, ...p2.body.data].map((f) => f.dedupeKey)).toEqual(['c3', 'c2', 'c1']);
    expect(p2.body.nextCursor).toBeNull();
    const counts = await jsonCall(svc, '/api/v1/trace-findings/counts?investigator=person');
    expect(counts.body).toEqual({
      total: 3,
      byStatus: { open: 3, investigating: 0, resolved: 0, dismissed: 0 },
      bySeverity: { low: 1, medium: 0, high: 0, critical: 2 },
    });
    expect((await jsonCall(svc, '/api/v1/trace-findings?status=closed')).status).toBe(400);
    expect((await jsonCall(svc, '/api/v1/trace-findings?assetType=planet')).status).toBe(400);
    expect((await jsonCall(svc, '/api/v1/trace-findings?cursor=abc')).status).toBe(400);
  });

  it('keeps projects apart', async () => {
    const other = (await createApiKey(storage(), { projectId: 'other', name: 'other', scopes: ['read', 'write'] })).secret;
    const { finding } = await raiseFinding(storage(), detection({ dedupeKey: 'mine' }));
    expect((await jsonCall(svc, `/api/v1/trace-findings/${finding.id}`, { key: other })).status).toBe(404);
    expect((await jsonCall(svc, `/api/v1/trace-findings/${finding.id}`, { method: 'PATCH', body: { status: 'dismissed' }, key: other })).status).toBe(404);
    expect((await jsonCall(svc, `/api/v1/trace-findings/${finding.id}/risk-assessment`, { method: 'POST', key: other })).status).toBe(404);
    expect((await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings', { key: other })).body.data).toEqual([]);
    expect((await jsonCall<{ total: number }>(svc, '/api/v1/trace-findings/counts', { key: other })).body.total).toBe(0);
  });

  it('assesses risk by the documented formula (figures worked out by hand)', async () => {
    const firstSeen = now - 3 * DAY;
    await raiseFinding(storage(), detection({ dedupeKey: 'risky', severity: 'high', evidence: evidenceTraces.slice(0, 2).map((x) => x.id), seenAtMs: firstSeen }));
    const { finding } = await raiseFinding(storage(), detection({
      dedupeKey: 'risky',
      severity: 'high',
      evidence: [`${evidenceTraces[2]!.id}/0000000000000001`, evidenceTraces[3]!.id, t(0xdead)],
      occurrences: 11,
      seenAtMs: now,
    }));
    expect(finding.occurrences).toBe(12);
    const res = await jsonCall<Assessment>(svc, `/api/v1/trace-findings/${finding.id}/risk-assessment`, { method: 'POST' });
    expect(res.status, res.text).toBe(201);
    // 12 occurrences over 3 days = 4 per day → likelihood 3 (2 ≤ f < 10).
    // Reach: 4 traces exist (the fifth id matches nothing), users u1 u2 u3 = 3, sessions s1 s2 = 2: not wide.
    // Cost $2 + $3 + $4 + $3 = $12 ≥ $10 → +1. Impact = 3 (high) + 0 + 1 = 4. Score 3 × 4 = 12 → high.
    expect(res.body).toMatchObject({
      method: 'likelihood-impact-v1',
      inputs: { occurrences: 12, affectedTraces: 4, affectedUsers: 3, affectedSessions: 2, severity: 'high' },
      frequencyPerDay: 4,
      likelihood: 3,
      impact: 4,
      score: 12,
      level: 'high',
    });
    expect(res.body.inputs.affectedCost).toBeCloseTo(12, 9);
    expect(res.body.rationale).toHaveLength(3);
    expect(res.body.mitigations.length).toBeGreaterThanOrEqual(2);
    // Stored with the finding, and the same figures when assessed again.
    const detail = await jsonCall<FindingDetail>(svc, `/api/v1/trace-findings/${finding.id}`);
    expect(detail.body.riskAssessment).toMatchObject({ score: 12, level: 'high', assessedBy: expect.stringMatching(/^key_/) });
    const again = await jsonCall<Assessment>(svc, `/api/v1/trace-findings/${finding.id}/risk-assessment`, { method: 'POST' });
    expect([again.body.likelihood, again.body.impact, again.body.score]).toEqual([3, 4, 12]);
  });

  it('raises a finding per trace flag once traces are flagged, one finding for every looping trace', async () => {
    const loop = (id: number, atMs: number) => ({
      resource: { attributes: [] },
      scopeSpans: [
        {
          spans: [
            { name: 'agent run', n: 1 },
            ...[2, 3, 4, 5, 6, 7].map((n) => ({ name: n % 2 === 0 ? 'search' : 'read', n })),
          ].map((s) => ({
            traceId: t(id),
            spanId: s.n.toString(16).padStart(16, '0'),
            parentSpanId: s.n === 1 ? '' : '0000000000000001',
            name: s.name,
            startTimeUnixNano: String((atMs + s.n) * 1e6),
            endTimeUnixNano: String((atMs + s.n + 0.5) * 1e6),
          })),
        },
      ],
    });
    const res = await svc.api('/api/v1/traces/otlp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [loop(0x701, now - 10 * 60_000), loop(0x702, now - 9 * 60_000)] }),
    });
    expect(res.status).toBe(200);
    const found = await eventually(async () => {
      const list = await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings?investigator=trace_flag&investigatorId=loop');
      const f = list.body.data[0];
      return f && f.occurrences === 2 ? f : undefined;
    }, 20_000, 'a loop finding for both traces');
    expect(found).toMatchObject({ severity: 'high', status: 'open', asset: { type: 'project', id: 'default' }, dedupeKey: 'trace_flag:loop' });
    expect([...found.evidence].sort()).toEqual([t(0x701), t(0x702)]);
    const all = await jsonCall<Page<Finding>>(svc, '/api/v1/trace-findings?investigator=trace_flag');
    expect(all.body.data).toHaveLength(1);
  });
});
