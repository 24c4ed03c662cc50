import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, type SpanNode, type TraceDetail } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { storedRows } from '../support/stored-rows.ts';

// A span can be stored more than once: a batch replayed by a client, or a span re-sent later
// with new values. The spans table keeps the newest copy (ReplacingMergeTree(ingested_at))
// once parts merge; a trace read must show that copy, once, before the merge as after it.
let svc: TestService;
const TRACE_ID = 'dd'.repeat(16);
const START_NS = BigInt(Date.now() - 10 * 60_000) * 1_000_000n;

/** One export of the trace: a root and a child, named after `version`. */
function batch(version: string) {
  const span = (n: number, parent?: number) => ({
    traceId: TRACE_ID,
    spanId: n.toString(16).padStart(16, '0'),
    ...(parent ? { parentSpanId: parent.toString(16).padStart(16, '0') } : {}),
    name: `${version} ${n}`,
    startTimeUnixNano: String(START_NS + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(START_NS + 100_000_000n),
    attributes: [{ key: 'input.value', value: { stringValue: `${version} question` } }],
  });
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(1), span(2, 1)] }] }] });
}

async function send(body: string) {
  const res = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function detail(): Promise<TraceDetail> {
  const res = await svc.api(`/api/v1/traces/${TRACE_ID}`);
  expect(res.status).toBe(200);
  return readJson<TraceDetail>(res);
}

const names = (nodes: SpanNode[]): string[] => nodes.flatMap((n) => [n.name, ...names(n.children)]);

beforeAll(async () => {
  svc = await startTestService();
  await send(batch('old'));
  await eventually(async () => ((await storedRows(svc.service.storage, [TRACE_ID])).rows === 2 ? true : undefined));
  await send(batch('old')); // replayed as it was
  // The re-sent copy comes with a later ingested_at: the writer stamps it when it writes.
  await new Promise((resolve) => setTimeout(resolve, 5));
  await send(batch('new'));
  await eventually(async () => ((await detail()).spans[0]?.name === 'new 1' ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

describe('GET /traces/{traceId} over spans stored more than once', () => {
  it('shows each span once, as its newest copy, while the copies are apart', async () => {
    const stored = await storedRows(svc.service.storage, [TRACE_ID]);
    expect(stored.distinct).toBe(2);
    expect(stored.rows).toBeGreaterThan(2); // the copies are really there, unmerged
    const trace = await detail();
    expect(names(trace.spans)).toEqual(['new 1', 'new 2']);
    expect([trace.spanCount, trace.name, trace.input]).toEqual([2, 'new 1', 'new question']);
  });

  it('shows the same after the engine merged the copies', async () => {
    await svc.service.storage.client.command({ query: 'OPTIMIZE TABLE spans FINAL' });
    expect(await storedRows(svc.service.storage, [TRACE_ID])).toEqual({ rows: 2, distinct: 2 });
    const trace = await detail();
    expect(names(trace.spans)).toEqual(['new 1', 'new 2']);
    expect([trace.spanCount, trace.name, trace.input]).toEqual([2, 'new 1', 'new question']);
  });
});
