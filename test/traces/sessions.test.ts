import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type SessionDetail } from '@aos/storage';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let otherKey: string;

// Times in nanoseconds from BASE (ten minutes ago, with a nanosecond part to see it kept).
const BASE = BigInt(Date.now() - 10 * 60_000) * 1_000_000n + 123n;
const SEC = 1_000_000_000n;
const at = (seconds: number) => BASE + BigInt(seconds) * SEC;
const iso = (ns: bigint) => `${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19)}.${String(ns % SEC).padStart(9, '0')}Z`;

interface TraceSpec {
  traceId: string;
  session?: string;
  user?: string;
  start: number;
  end: number;
  llm?: { input: number; output: number };
  /** An agent span below a root without text: the trace's texts are the agent's. */
  agent?: { input: string; output: string };
  error?: boolean;
}

// Session B ends last (20 s), then A (13 s), then C (4 s); T5 has no session.
const T1: TraceSpec = {
  traceId: 'a1'.repeat(16),
  session: 'sess-a',
  user: 'alice',
  start: 0,
  end: 2,
  llm: { input: 1000, output: 200 },
  agent: { input: 'where is my parcel?', output: 'it arrives today' },
};
const T2: TraceSpec = { traceId: 'a2'.repeat(16), session: 'sess-a', user: 'bob', start: 10, end: 13, llm: { input: 500, output: 100 }, error: true };
const T3: TraceSpec = { traceId: 'b3'.repeat(16), session: 'sess-b', user: 'alice', start: 5, end: 20, llm: { input: 2000, output: 400 } };
const T4: TraceSpec = { traceId: 'c4'.repeat(16), session: 'sess-c', start: 1, end: 4 };
const T5: TraceSpec = { traceId: 'd5'.repeat(16), start: 2, end: 3, llm: { input: 10, output: 10 } };

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

function spansOf(t: TraceSpec) {
  const root = {
    traceId: t.traceId,
    spanId: `${t.traceId.slice(0, 2)}00000000000001`,
    name: 'agent run',
    startTimeUnixNano: String(at(t.start)),
    endTimeUnixNano: String(at(t.end)),
    attributes: [...(t.session ? [str('session.id', t.session)] : []), ...(t.user ? [str('user.id', t.user)] : [])],
    ...(t.error ? { status: { code: 2, message: 'tool failed' } } : {}),
  };
  const llm = t.llm && {
    traceId: t.traceId,
    spanId: `${t.traceId.slice(0, 2)}00000000000002`,
    parentSpanId: root.spanId,
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: String(at(t.start) + SEC / 2n),
    endTimeUnixNano: String(at(t.start) + SEC),
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.request.model', 'gpt-4o'),
      { key: 'gen_ai.usage.input_tokens', value: { intValue: String(t.llm.input) } },
      { key: 'gen_ai.usage.output_tokens', value: { intValue: String(t.llm.output) } },
    ],
  };
  const agent = t.agent && {
    traceId: t.traceId,
    spanId: `${t.traceId.slice(0, 2)}00000000000003`,
    parentSpanId: root.spanId,
    name: 'support agent',
    startTimeUnixNano: String(at(t.start) + SEC / 4n),
    endTimeUnixNano: String(at(t.start) + (SEC * 3n) / 2n),
    attributes: [str('openinference.span.kind', 'AGENT'), str('input.value', t.agent.input), str('output.value', t.agent.output)],
  };
  return [root, ...(llm ? [llm] : []), ...(agent ? [agent] : [])];
}

async function ingest(traces: TraceSpec[], key = svc.key) {
  const body = { resourceSpans: [{ resource: { attributes: [str('service.name', 'sessions-test')] }, scopeSpans: [{ spans: traces.flatMap(spansOf) }] }] };
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
}

function get(pathAndQuery: string, key = svc.key) {
  return svc.api(`/api/v1/traces/sessions${pathAndQuery}`, { key });
}

async function getJson(pathAndQuery: string, key = svc.key): Promise<any> {
  const res = await get(pathAndQuery, key);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

beforeAll(async () => {
  svc = await startTestService({ API_KEY_CACHE_TTL_MS: '0' });
  const { storage } = svc.service;
  otherKey = (await createApiKey(storage, { projectId: 'other', name: 'other-read', scopes: ['read', 'ingest'] })).secret;

  await ingest([T1, T2, T3, T4, T5]);
  await eventually(async () => {
    const { data } = await getJson('');
    return data.length === 3 && data.reduce((n: number, s: any) => n + s.traceCount, 0) === 4 ? true : undefined;
  }, 20_000, 'the sessions to be stored');
});
afterAll(async () => {
  await svc?.stop();
});

const expected = {
  'sess-b': {
    sessionId: 'sess-b',
    firstActivity: iso(at(5)),
    lastActivity: iso(at(20)),
    traceCount: 1,
    durationMs: 15_000,
    inputTokens: 2000,
    outputTokens: 400,
    totalTokens: 2400,
    errorCount: 0,
    users: ['alice'],
  },
  'sess-a': {
    sessionId: 'sess-a',
    firstActivity: iso(at(0)),
    lastActivity: iso(at(13)),
    traceCount: 2,
    durationMs: 13_000,
    inputTokens: 1500,
    outputTokens: 300,
    totalTokens: 1800,
    errorCount: 1,
    users: ['alice', 'bob'],
  },
  'sess-c': {
    sessionId: 'sess-c',
    firstActivity: iso(at(1)),
    lastActivity: iso(at(4)),
    traceCount: 1,
    durationMs: 3_000,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    errorCount: 0,
    users: [],
  },
};
// gpt-4o: $2.50 / 1M in, $10 / 1M out; answered rounded to 1e-10 USD, so exactly these.
const expectedCost = { 'sess-b': 0.009, 'sess-a': 0.00675, 'sess-c': 0 };

describe('GET /traces/sessions', () => {
  it('lists sessions newest last activity first with their figures', async () => {
    const { data, nextCursor } = await getJson('');
    expect(nextCursor).toBeNull();
    expect(data.map((s: any) => s.sessionId)).toEqual(['sess-b', 'sess-a', 'sess-c']);
    for (const session of data) {
      const id = session.sessionId as keyof typeof expected;
      const { cost, ...rest } = session;
      expect(rest).toEqual({ projectId: 'default', ...expected[id] });
      expect(cost).toBe(expectedCost[id]);
    }
  });

  it('walks every session in order one page at a time', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const body: any = await getJson(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data.map((s: any) => s.sessionId));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(['sess-b', 'sess-a', 'sess-c']);
  });

  it('counts only the traces the filter keeps', async () => {
    // Traces starting from BASE + 3 s: T2 (A) and T3 (B); C's only trace starts at 1 s.
    const startTime = Number(at(3) / 1_000_000n) + 1;
    const { data } = await getJson(`?startTime=${startTime}`);
    expect(data.map((s: any) => [s.sessionId, s.traceCount, s.users, s.errorCount])).toEqual([
      ['sess-b', 1, ['alice'], 0],
      ['sess-a', 1, ['bob'], 1],
    ]);
    expect(data[1].firstActivity).toBe(iso(at(10)));
  });

  it('refuses bad input with 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?colour=red', 'colour'],
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?cursor=not-a-cursor', 'cursor'],
      // A trace-list cursor is not a session cursor.
      [`?cursor=${Buffer.from(JSON.stringify({ value: '1', traceId: 'x', sort: 'startTime:desc' })).toString('base64url')}`, 'cursor'],
      ['?flagged=maybe', 'flagged'],
    ] as const) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      const { error } = (await res.json()) as any;
      expect(error.code).toBe('invalid_request');
      expect(error.details.map((d: any) => d.field), query).toContain(field);
    }
  });

  it('takes flagged=true|false (no trace here is flagged yet: they have not gone quiet)', async () => {
    expect((await getJson('?flagged=true')).data).toEqual([]);
    expect((await getJson('?flagged=false')).data.length).toBeGreaterThan(0);
    expect((await get('?flagged=maybe')).status).toBe(400);
  });

  it("shows another project's key nothing", async () => {
    expect((await getJson('', otherKey)).data).toEqual([]);
    expect((await get('?projectId=default', otherKey)).status).toBe(403);
  });
});

describe('GET /traces/sessions/:sessionId', () => {
  it('returns the figures over all traces, the traces in start order and the session scores', async () => {
    const write = await svc.api('/api/v1/trace-scores', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scores: [{ sessionId: 'sess-a', name: 'csat', value: 4, comment: 'fine' }, { traceId: T1.traceId, name: 'on-trace', value: 1 }] }),
    });
    expect(write.status, await write.clone().text()).toBe(200);

    const session: SessionDetail & { projectId: string } = await getJson('/sess-a');
    const { cost, traces, scores, ...figures } = session;
    expect(figures).toEqual({ projectId: 'default', ...expected['sess-a'], tracesTruncated: false, scoresTruncated: false });
    expect(cost).toBe(expectedCost['sess-a']);
    expect(traces.map((t) => [t.traceId, t.startTime, t.status, t.userId, t.totalTokens, t.cost])).toEqual([
      [T1.traceId, iso(at(0)), 'unset', 'alice', 1200, 0.0045],
      [T2.traceId, iso(at(10)), 'error', 'bob', 600, 0.00225],
    ]);
    // The root has no text: the trace's texts are its agent's.
    expect([traces[0]!.input, traces[0]!.output]).toEqual(['where is my parcel?', 'it arrives today']);
    // Only scores on the session itself, not on its traces.
    expect(scores.map((s) => [s.name, s.value, s.sessionId, s.comment])).toEqual([['csat', 4, 'sess-a', 'fine']]);
  });

  it('is not windowed: a detail covers traces outside the default list window', async () => {
    const old: TraceSpec = { traceId: 'e6'.repeat(16), session: 'sess-c', user: 'carol', start: -30 * 24 * 3600, end: -30 * 24 * 3600 + 1 };
    await ingest([old]);
    const session = await eventually(async () => {
      const s = await getJson('/sess-c');
      return s.traceCount === 2 ? s : undefined;
    }, 20_000, 'the old trace to be stored');
    expect(session.firstActivity).toBe(iso(at(old.start)));
    expect(session.users).toEqual(['carol']);
    expect(session.traces.map((t: any) => t.traceId)).toEqual([old.traceId, T4.traceId]);
    // The list keeps to its window.
    const { data } = await getJson('');
    expect(data.find((s: any) => s.sessionId === 'sess-c').traceCount).toBe(1);
  });

  it("reads a trace's spans that do not name the session within the hour around the session's own", async () => {
    // The root names the session; a model call 50 minutes later does not, and still counts.
    const root = spansOf({ traceId: 'f7'.repeat(16), session: 'sess-d', start: -3 * 3600, end: -3 * 3600 + 1 })[0]!;
    const lateCall = {
      traceId: root.traceId,
      spanId: 'f700000000000009',
      parentSpanId: root.spanId,
      name: 'chat gpt-4o',
      kind: 3,
      startTimeUnixNano: String(at(-3 * 3600 + 50 * 60)),
      endTimeUnixNano: String(at(-3 * 3600 + 50 * 60 + 1)),
      attributes: [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt-4o'), { key: 'gen_ai.usage.input_tokens', value: { intValue: '70' } }],
    };
    const body = { resourceSpans: [{ resource: { attributes: [str('service.name', 'sessions-test')] }, scopeSpans: [{ spans: [root, lateCall] }] }] };
    const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(200);
    const session = await eventually(async () => {
      const s = await get('/sess-d');
      return s.status === 200 ? ((await s.json()) as { traceCount: number; inputTokens: number; lastActivity: string }) : undefined;
    }, 20_000, 'the session to be stored');
    expect([session.traceCount, session.inputTokens, session.lastActivity]).toEqual([1, 70, iso(at(-3 * 3600 + 50 * 60 + 1))]);
  });

  it('answers 404 for an unknown session and for another project', async () => {
    const unknown = await get('/no-such-session');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('not_found');
    expect((await get('/sess-a', otherKey)).status).toBe(404);
    expect((await get('/sess-a?projectId=default', otherKey)).status).toBe(403);
    expect((await get('/sess-a?projectId=default')).status).toBe(200);
  });
});
