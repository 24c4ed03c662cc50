import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceFlag } from '@aos/domain';
import { createApiKey, writeTraceFlags } from '@aos/storage';
import { readJson, type SpanNode, type TraceDetail } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// What a trace read must keep apart and put together: spans of one trace in two hours, a
// trace id sent to two projects, and flags written twice (a trace judged again). The read is
// one statement with subqueries for the hours and the flags (storage traces/detail.ts), run
// with settings of its own: each of these answers depends on those parts.
let svc: TestService;
let otherKey: string;
const DAY = 86_400_000;
const HOUR_NS = 3_600_000_000_000n;
const TRACE_ID = 'de'.repeat(16);
// Two hours ago at the half hour, so the second span, an hour later, is in the next hour.
const START_NS = (BigInt(Date.now()) / 3_600_000n - 2n) * HOUR_NS + HOUR_NS / 2n;

function spans(project: string) {
  const span = (n: number, startNs: bigint, parent?: number) => ({
    traceId: TRACE_ID,
    spanId: n.toString(16).padStart(16, '0'),
    ...(parent ? { parentSpanId: parent.toString(16).padStart(16, '0') } : {}),
    name: `${project} ${n}`,
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(START_NS + HOUR_NS + 1_000_000n),
    attributes: [{ key: 'input.value', value: { stringValue: `${project} question` } }],
  });
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, START_NS), span(2, START_NS + HOUR_NS, 1)] }] }] });
}

async function detail(key?: string): Promise<TraceDetail> {
  const res = await svc.api(`/api/v1/traces/${TRACE_ID}`, key ? { key } : {});
  expect(res.status).toBe(200);
  return readJson<TraceDetail>(res);
}

const names = (nodes: SpanNode[]): string[] => nodes.flatMap((n) => [n.name, ...names(n.children)]);

beforeAll(async () => {
  // The flags pass finds nothing quiet for a day: the test writes the flags itself.
  svc = await startTestService({ TRACE_QUIET_MS: String(DAY), TRACE_FLAGS_INTERVAL_MS: String(DAY) });
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['ingest', 'read'] })).secret;
  for (const [project, key] of [['default', undefined], ['other', otherKey]] as const) {
    const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: spans(project), ...(key ? { key } : {}) });
    expect(res.status, await res.clone().text()).toBe(200);
    await eventually(async () => ((await detail(key)).spanCount === 2 ? true : undefined));
  }
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /traces/{traceId} of a trace in two hours, two projects, judged twice', () => {
  it('shows the spans of both hours, of its own project only', async () => {
    const own = await detail();
    expect([names(own.spans), own.spanCount, own.input]).toEqual([['default 1', 'default 2'], 2, 'default question']);
    const other = await detail(otherKey);
    expect([names(other.spans), other.spanCount, other.input]).toEqual([['other 1', 'other 2'], 2, 'other question']);
  });

  it('shows the flags of the newest judgement, of its own project only', async () => {
    expect((await detail()).flags).toBeNull();
    const judged = (flags: TraceFlag[], judgement: number) => ({
      projectId: 'default', traceId: TRACE_ID, flags, details: Object.fromEntries(flags.map((f) => [f, `${f} at ${judgement}`])),
      spansIngestedAt: Date.now(), spansLandedAt: Date.now(), startHourMs: Number(START_NS / 1_000_000n), computedAtMs: Date.now(),
    });
    await writeTraceFlags(svc.service.storage, [judged(['loop'], 1)]);
    await writeTraceFlags(svc.service.storage, [judged(['duplicate_tools', 'loop'], 2)]);
    const expected = [['duplicate_tools', 'loop'], { duplicate_tools: 'duplicate_tools at 2', loop: 'loop at 2' }];
    const own = await detail();
    expect([own.flags, own.flagDetails]).toEqual(expected);
    expect((await detail(otherKey)).flags).toBeNull();
    await svc.service.storage.client.command({ query: 'OPTIMIZE TABLE trace_flags FINAL' });
    const merged = await detail();
    expect([merged.flags, merged.flagDetails]).toEqual(expected);
  });
});
