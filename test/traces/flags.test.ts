import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTraceFlags } from '@aos/storage';
import { readJson, type Page, type SessionListItem, type TraceDetail, type TraceListItem, type TraceSummary } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

type Attrs = Record<string, string | number>;
interface CraftedSpan {
  name: string;
  attrs?: Attrs;
  /** The parent's span number (1 is the root); the root when absent. */
  parent?: number;
  /** OTLP status code; ok when absent. */
  status?: number;
  /** OTLP span kind (2: server); internal when absent. */
  kind?: number;
}

const hex = (n: number) => n.toString(16).padStart(32, '0');
const DUPLICATE = hex(0xd1);
const LOOP = hex(0x10);
const EMPTY = hex(0xe1);
const EXPENSIVE = hex(0xc1);
const CLEAN = hex(0xa1);
const NORMAL = Array.from({ length: 25 }, (_, i) => hex(0x100 + i));
// empty_output as the instrumentations' shapes need it: a failed HTTP root, an agent that
// called a tool, an OpenInference AGENT span whose model call answered (no flag on any), and
// an agent that did nothing (flagged).
const FAILED_ROOT = hex(0xe2);
const AGENT_TOOLS = hex(0xe3);
const AGENT_MODEL = hex(0xe4);
const EMPTY_AGENT = hex(0xe5);

const tool = (name: string, args: string): CraftedSpan => ({
  name: `execute_tool ${name}`,
  attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': args },
});
const chat = (inputTokens: number, outputTokens: number, output?: string): CraftedSpan => ({
  name: 'chat gpt-4o',
  attrs: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': inputTokens,
    ...(outputTokens > 0 ? { 'gen_ai.usage.output_tokens': outputTokens } : {}),
    ...(output !== undefined ? { 'gen_ai.output.messages': output } : {}),
  },
});
const ANSWER = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'done' }] }]);
const httpRoot = (code: number): CraftedSpan => ({
  name: 'POST /api/chat',
  kind: 2,
  status: code >= 500 ? 2 : 0,
  attrs: { 'http.request.method': 'POST', 'http.route': '/api/chat', 'http.response.status_code': code },
});
const invokeAgent: CraftedSpan = { name: 'invoke_agent planner', attrs: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } };

/** Spans of a trace: the first is the root, the others its children, one millisecond apart. */
function resourceSpans(traceId: string, spans: CraftedSpan[], base: number, firstSpan = 1) {
  const value = (v: string | number) => (typeof v === 'number' ? { intValue: String(v) } : { stringValue: v });
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: 'flag-test' } }] },
    scopeSpans: [
      {
        spans: spans.map((s, i) => {
          const n = firstSpan + i;
          return {
            traceId,
            spanId: n.toString(16).padStart(16, '0'),
            parentSpanId: n === 1 ? '' : (s.parent ?? 1).toString(16).padStart(16, '0'),
            name: s.name,
            ...(s.kind !== undefined ? { kind: s.kind } : {}),
            startTimeUnixNano: String(base + n * 1e6),
            endTimeUnixNano: String(base + n * 1e6 + 5e5),
            status: { code: s.status ?? 1 },
            attributes: Object.entries(s.attrs ?? {}).map(([key, v]) => ({ key, value: value(v) })),
          };
        }),
      },
    ],
  };
}

async function post(body: unknown) {
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function ids(query: string): Promise<string[]> {
  const res = await svc.api(`/api/v1/traces?limit=500&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (((await res.json()) as { data: Array<{ traceId: string }> }).data.map((t) => t.traceId)).sort();
}

/** Waits until the filter returns exactly `expected`. */
async function expectFlagged(query: string, expected: string[]) {
  const want = [...expected].sort();
  await eventually(async () => (JSON.stringify(await ids(query)) === JSON.stringify(want) ? true : undefined), 20_000, query);
}

const base = Date.now() * 1e6 - 30 * 60e9;

beforeAll(async () => {
  svc = await startTestService({ TRACE_QUIET_MS: '500', TRACE_FLAGS_INTERVAL_MS: '300' });
  const traces = [
    resourceSpans(DUPLICATE, [{ name: 'agent run' }, tool('lookup', '{"id":1,"deep":true}'), chat(100, 10, ANSWER), tool('lookup', '{"deep":true,"id":1}')], base),
    resourceSpans(
      LOOP,
      [{ name: 'agent run', attrs: { 'session.id': 'looping-session' } }, ...[1, 2, 3, 4].flatMap((i) => [tool('search', `{"q":"try ${i}"}`), tool('read', `{"page":${i}}`)])],
      base + 1e9,
    ),
    resourceSpans(EMPTY, [{ name: 'agent run' }, chat(1200, 0)], base + 2e9),
    resourceSpans(EXPENSIVE, [chat(1_000_000, 50_000, ANSWER)], base + 3e9),
    resourceSpans(CLEAN, [{ name: 'agent run' }, tool('lookup', '{"id":1}'), tool('search', '{"q":"x"}')], base + 4e9),
    resourceSpans(FAILED_ROOT, [httpRoot(500), chat(1200, 0)], base + 5e9),
    resourceSpans(AGENT_TOOLS, [httpRoot(200), invokeAgent, { ...tool('lookup', '{"id":2}'), parent: 2 }], base + 6e9),
    resourceSpans(
      AGENT_MODEL,
      [
        { name: 'Support agent', attrs: { 'openinference.span.kind': 'AGENT' } },
        { name: 'response', attrs: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'output.value': 'It ships tomorrow.' } },
      ],
      base + 7e9,
    ),
    resourceSpans(EMPTY_AGENT, [httpRoot(200), invokeAgent], base + 8e9),
    // Costs between $0.0035 and $0.0047 (gpt-4o: $2.50 / 1M in, $10 / 1M out).
    ...NORMAL.map((id, i) => resourceSpans(id, [chat(1000 + i * 20, 100, ANSWER)], base + (10 + i) * 1e9)),
  ];
  await post({ resourceSpans: traces });
  await eventually(async () => ((await ids('')).length === 9 + NORMAL.length ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

describe('trace flags', () => {
  it("judges traces as the engine's background work, behind the requests' reads", async () => {
    await expectFlagged('flag=loop', [LOOP]);
    // Only the writer's background work reads with that priority: the flags pass ran its searches and reads so.
    expect(svc.service.storage.statements!.runMs('read', 'background')).toBeGreaterThan(0);
  });

  it('flags each crafted trace once it goes quiet', async () => {
    await expectFlagged('flag=duplicate_tools', [DUPLICATE]);
    await expectFlagged('flag=loop', [LOOP]);
    await expectFlagged('flag=empty_output', [EMPTY, EMPTY_AGENT]);
    await expectFlagged('flag=cost_outlier', [EXPENSIVE]);
  });

  it('leaves the clean and normal traces unflagged, and explains each flag', async () => {
    // Every trace has a flags row once the pass got to it.
    await eventually(async () => ((await getTraceFlags(svc.service.storage, 'default', CLEAN)) ? true : undefined));
    for (const id of [CLEAN, FAILED_ROOT, AGENT_TOOLS, AGENT_MODEL, ...NORMAL]) {
      expect((await getTraceFlags(svc.service.storage, 'default', id))?.flags, id).toEqual([]);
    }
    const loop = await getTraceFlags(svc.service.storage, 'default', LOOP);
    expect(loop).toEqual({ flags: ['loop'], details: { loop: 'tool:search → tool:read repeated 4 times from step 1' } });
    const duplicate = await getTraceFlags(svc.service.storage, 'default', DUPLICATE);
    expect(duplicate?.details.duplicate_tools).toBe('lookup called 2 times with arguments {"deep":true,"id":1}');
    const emptyAgent = await getTraceFlags(svc.service.storage, 'default', EMPTY_AGENT);
    expect(emptyAgent).toEqual({ flags: ['empty_output'], details: { empty_output: 'agent span "invoke_agent planner" finished with no output' } });
    // flag_rate (the measure monitors and timeseries share): 5 flagged of 34 traces.
    await eventually(async () => {
      const res = await svc.api('/api/v1/trace-monitors/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ measure: 'flag_rate', windowSeconds: 3600, intervalSeconds: 60, condition: { operator: 'above', threshold: 0.5 } }),
      });
      const body = (await res.json()) as { value: number; state: string };
      return Math.abs(body.value - 5 / 34) < 1e-9 && body.state === 'ok' ? true : undefined;
    }, 20_000, 'flag_rate 5/34');
    const expensive = await getTraceFlags(svc.service.storage, 'default', EXPENSIVE);
    expect(expensive?.details.cost_outlier).toMatch(/^cost 3 above 0\.00\d+ \(median 0\.00\d+ \+ 5 × MAD 0\.000\d+\)$/);
  });

  it('combines flags with AND and with the other filters, and refuses unknown flags', async () => {
    await expectFlagged('flag=duplicate_tools', [DUPLICATE]);
    expect(await ids('flag=duplicate_tools&flag=loop')).toEqual([]);
    expect(await ids('flag=cost_outlier&status=ok')).toEqual([EXPENSIVE]);
    const res = await svc.api('/api/v1/traces?flag=slow');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: Array<{ field: string }> } }).error.details[0]?.field).toBe('flag.0');
    // Endpoints that take the trace filter take flag too.
    const summary = await svc.api('/api/v1/traces/summary?flag=loop');
    expect(summary.status, await summary.clone().text()).toBe(200);
    expect((await readJson<TraceSummary>(summary)).traceFlagCounts).toMatchObject({ loop: 1, duplicate_tools: 0 });
    // Flags come back with traces, in lists and in the detail.
    const list = await readJson<Page<TraceListItem>>(await svc.api('/api/v1/traces?flag=loop'));
    expect(list.data[0]?.flags).toEqual(['loop']);
    const detail = await readJson<TraceDetail>(await svc.api(`/api/v1/traces/${LOOP}`));
    expect(detail.flags).toEqual(['loop']);
    expect(detail.flagDetails?.loop).toMatch(/repeated 4 times/);
    const clean = await readJson<TraceDetail>(await svc.api(`/api/v1/traces/${CLEAN}`));
    expect([clean.flags, clean.flagDetails]).toEqual([[], {}]);
    // A session with a flagged trace is a flagged session.
    const flagged = await readJson<Page<SessionListItem>>(await svc.api('/api/v1/traces/sessions?flagged=true'));
    expect(flagged.data.map((s) => s.sessionId)).toEqual(['looping-session']);
  });

  it('recomputes a trace when late spans arrive', async () => {
    await eventually(async () => ((await getTraceFlags(svc.service.storage, 'default', CLEAN)) ? true : undefined));
    await post({ resourceSpans: [resourceSpans(CLEAN, [tool('lookup', '{"id":1}')], base + 4e9, 4)] });
    await expectFlagged('flag=duplicate_tools', [CLEAN, DUPLICATE]);
    expect((await getTraceFlags(svc.service.storage, 'default', CLEAN))?.flags).toEqual(['duplicate_tools']);
  });
});
