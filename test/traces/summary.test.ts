import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
const keys: Record<string, string> = {};

// Five traces a second apart, half an hour ago, with root spans of known length.
const BASE_MS = Math.floor(Date.now() / 1000) * 1000 - 30 * 60_000;
const WINDOW = `startTime=${new Date(BASE_MS - 60_000).toISOString()}&endTime=${new Date(BASE_MS + 60_000).toISOString()}`;

type Attr = string | number;
interface SpanSpec {
  spanId: string;
  parent?: string;
  name: string;
  offsetMs: number;
  durationMs: number;
  error?: boolean;
  attributes?: Record<string, Attr>;
}
interface TraceSpec {
  traceId: string;
  startMs: number;
  spans: SpanSpec[];
}

const llm = (inputTokens?: number, outputTokens?: number): Record<string, Attr> => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'gpt-4o',
  ...(inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': inputTokens } : {}),
  ...(outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': outputTokens } : {}),
});

const trace = (n: number, durationMs: number, rootAttributes: Record<string, Attr>, children: Omit<SpanSpec, 'parent'>[]): TraceSpec => ({
  traceId: `${n}a`.repeat(16),
  startMs: BASE_MS + n * 1000,
  spans: [
    { spanId: `${n}000000000000001`, name: 'agent run', offsetMs: 0, durationMs, attributes: rootAttributes },
    ...children.map((c) => ({ ...c, parent: `${n}000000000000001` })),
  ],
});

const TRACES: TraceSpec[] = [
  trace(1, 100, { 'session.id': 's-1', 'user.id': 'u-1' }, [{ spanId: '1000000000000002', name: 'chat gpt-4o', offsetMs: 10, durationMs: 50, attributes: llm(1000, 200) }]),
  trace(2, 200, { 'session.id': 's-1', 'user.id': 'u-2' }, [{ spanId: '2000000000000002', name: 'chat gpt-4o', offsetMs: 10, durationMs: 100, attributes: llm(500, 100) }]),
  trace(3, 300, { 'session.id': 's-2', 'user.id': 'u-2' }, [{ spanId: '3000000000000002', name: 'tool search', offsetMs: 10, durationMs: 100, error: true }]),
  trace(4, 400, {}, [{ spanId: '4000000000000002', name: 'chat gpt-4o', offsetMs: 10, durationMs: 200, attributes: llm(100, 50) }]),
  // An LLM span without token counts: flagged missing_token_counts, costs nothing.
  trace(5, 1000, { 'user.id': 'u-1' }, [{ spanId: '5000000000000002', name: 'chat gpt-4o', offsetMs: 10, durationMs: 500, attributes: llm() }]),
];

// Worked out by hand from TRACES (gpt-4o: $2.50 per million input tokens, $10 per million output).
const EXPECTED = {
  traceCount: 5,
  spanCount: 10,
  errorCount: 1,
  errorRate: 0.2,
  sessionCount: 2, // s-1, s-2
  userCount: 2, // u-1, u-2
  tokens: { input: 1600, output: 350, total: 1950, cachedInput: 0, reasoning: 0 },
  // 1000*2.5e-6 + 200*10e-6 = 0.0045; 500*2.5e-6 + 100*10e-6 = 0.00225; 100*2.5e-6 + 50*10e-6 = 0.00075
  costTotal: 0.0075,
  costMean: 0.0015,
  flaggedSpanCount: 1,
  medianDurationMs: 300,
  maxDurationMs: 1000,
};

function otlp(traces: TraceSpec[]) {
  const value = (v: Attr) => (typeof v === 'number' ? { intValue: String(v) } : { stringValue: v });
  const ns = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'summary-agent' } }] },
        scopeSpans: [
          {
            spans: traces.flatMap((t) =>
              t.spans.map((s) => ({
                traceId: t.traceId,
                spanId: s.spanId,
                ...(s.parent ? { parentSpanId: s.parent } : {}),
                name: s.name,
                startTimeUnixNano: ns(t.startMs + s.offsetMs),
                endTimeUnixNano: ns(t.startMs + s.offsetMs + s.durationMs),
                attributes: Object.entries(s.attributes ?? {}).map(([key, v]) => ({ key, value: value(v) })),
                ...(s.error ? { status: { code: 2, message: 'search failed' } } : {}),
              })),
            ),
          },
        ],
      },
    ],
  });
}

async function summary(query: string, key = keys.a!) {
  return svc.api(`/api/v1/traces/summary?${query}`, { key });
}

async function summaryOk(query: string, key = keys.a!) {
  const res = await summary(query, key);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as any;
}

beforeAll(async () => {
  svc = await startTestService({ API_KEY_CACHE_TTL_MS: '0' });
  const storage = svc.service.storage;
  keys.a = (await createApiKey(storage, { projectId: 'default', name: 'summary-read', scopes: ['read', 'write'] })).secret;
  keys.other = (await createApiKey(storage, { projectId: 'other', name: 'other-read', scopes: ['read'] })).secret;

  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: otlp(TRACES) });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.json()).toEqual({});
  await eventually(async () => ((await summaryOk(WINDOW)).spanCount === EXPECTED.spanCount ? true : undefined), 20_000, 'spans stored');
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /traces/summary', () => {
  it('adds up counts, errors, sessions, users, tokens, cost and flags of the traces in the window', async () => {
    const body = await summaryOk(WINDOW);
    expect(body).toMatchObject({
      traceCount: EXPECTED.traceCount,
      spanCount: EXPECTED.spanCount,
      errorCount: EXPECTED.errorCount,
      sessionCount: EXPECTED.sessionCount,
      userCount: EXPECTED.userCount,
      tokens: EXPECTED.tokens,
      flaggedSpanCount: EXPECTED.flaggedSpanCount,
      window: { startTime: new Date(BASE_MS - 60_000).toISOString(), endTime: new Date(BASE_MS + 60_000).toISOString() },
    });
    expect(body.errorRate).toBeCloseTo(EXPECTED.errorRate, 10);
    expect(body.cost.total).toBe(EXPECTED.costTotal); // rounded to 1e-10 USD: exact
    expect(body.cost.mean).toBe(EXPECTED.costMean);
    // No masking policy here: nothing was masked.
    expect(body.maskedSpanCount).toBe(0);
    expect(body.maskedRuleCounts).toEqual({});
    expect(Object.keys(body).sort()).toEqual(
      ['cost', 'errorCount', 'errorRate', 'flaggedSpanCount', 'flaggedTraceCount', 'latencyMs', 'maskedRuleCounts', 'maskedSpanCount', 'sessionCount', 'spanCount', 'tokens', 'traceCount', 'traceFlagCounts', 'userCount', 'window'].sort(),
    );
  });

  it('gives trace duration quantiles in order, the median near the known median', async () => {
    const { latencyMs } = await summaryOk(WINDOW);
    expect(Math.abs(latencyMs.p50 - EXPECTED.medianDurationMs)).toBeLessThanOrEqual(1);
    expect(latencyMs.p50).toBeLessThanOrEqual(latencyMs.p90);
    expect(latencyMs.p90).toBeLessThanOrEqual(latencyMs.p95);
    expect(latencyMs.p95).toBeLessThanOrEqual(latencyMs.p99);
    expect(latencyMs.p99).toBeLessThanOrEqual(EXPECTED.maxDurationMs);
    expect(latencyMs.p99).toBeGreaterThan(EXPECTED.medianDurationMs);
  });

  it('narrows with the rest of the trace filter (scoreName)', async () => {
    const scored = [TRACES[0]!.traceId, TRACES[2]!.traceId];
    const res = await svc.api('/api/v1/trace-scores', {
      method: 'POST',
      key: keys.a!,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scores: scored.map((traceId) => ({ traceId, name: 'summary-check', value: 1 })) }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await summaryOk(`${WINDOW}&scoreName=summary-check`);
    // Traces 1 and 3: 100 ms and 300 ms, two spans each, trace 3 failed, only trace 1 used tokens.
    expect(body).toMatchObject({ traceCount: 2, spanCount: 4, errorCount: 1, errorRate: 0.5, sessionCount: 2, userCount: 2 });
    expect(body.tokens).toEqual({ input: 1000, output: 200, total: 1200, cachedInput: 0, reasoning: 0 });
    expect(body.cost.total).toBe(0.0045);
    expect(body.latencyMs.p99).toBeLessThanOrEqual(300);
  });

  it('narrows with the trace-level filters too (status)', async () => {
    const body = await summaryOk(`${WINDOW}&status=error`);
    expect(body).toMatchObject({ traceCount: 1, errorCount: 1, errorRate: 1 });
  });

  it('narrows with a query on figures the summary does not add up (the models, the name)', async () => {
    const withModel = await summaryOk(`${WINDOW}&query=${encodeURIComponent('model exists and name = "agent run"')}`);
    expect(withModel).toMatchObject({ traceCount: 4, errorCount: 0 });
  });

  it('gives zeros and nulls for an empty window', async () => {
    const start = new Date(BASE_MS - 2 * 86_400_000).toISOString();
    const end = new Date(BASE_MS - 86_400_000).toISOString();
    expect(await summaryOk(`startTime=${start}&endTime=${end}`)).toEqual({
      traceCount: 0,
      spanCount: 0,
      errorCount: 0,
      errorRate: 0,
      sessionCount: 0,
      userCount: 0,
      latencyMs: { p50: null, p90: null, p95: null, p99: null },
      cost: { total: 0, mean: null },
      tokens: { input: 0, output: 0, total: 0, cachedInput: 0, reasoning: 0 },
      flaggedSpanCount: 0,
      maskedSpanCount: 0,
      maskedRuleCounts: {},
      flaggedTraceCount: 0,
      traceFlagCounts: { duplicate_tools: 0, loop: 0, cost_outlier: 0, empty_output: 0 },
      window: { startTime: start, endTime: end },
    });
  });

  it("shows another project's key none of these traces", async () => {
    const body = await summaryOk(WINDOW, keys.other!);
    expect(body).toMatchObject({ traceCount: 0, spanCount: 0, cost: { total: 0, mean: null } });
  });

  it('refuses another projectId (403), unknown parameters and bad filters (400), no key (401)', async () => {
    const forbidden = await summary(`${WINDOW}&projectId=other`);
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as any).error.code).toBe('forbidden');
    const unknown = await summary(`${WINDOW}&colour=red`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.details).toEqual([{ field: 'colour', message: 'unknown parameter' }]);
    expect((await summary('startTime=yesterday')).status).toBe(400);
    expect((await summary(`startTime=${new Date(BASE_MS).toISOString()}&endTime=${new Date(BASE_MS - 1).toISOString()}`)).status).toBe(400);
    expect((await summary('scoreMin=1')).status).toBe(400);
    expect((await svc.api('/api/v1/traces/summary', { key: null })).status).toBe(401);
  });
});
