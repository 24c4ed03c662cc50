import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsOfChosenTraces } from '../../packages/storage/src/traces/chosen.ts';
import { msToDateTimeParam } from '../../packages/storage/src/sql/values.ts';
import { readJson, type Page, type SpanNode, type TraceDetail, type TraceListItem } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// A trace's figures are computed two ways: from its spans (storage traces/figures.ts: the detail,
// and list pages of few spans) and by the engine (TRACE_FIGURES_SQL: summaries, sessions,
// list pages of big traces). Its texts are aggregated by the engine from whole texts (the
// detail) and from the 1,000-character previews (lists). These traces take each branch of
// those rules; every answer must agree on every one.
let svc: TestService;
const NOW_NS = BigInt(Date.now() - 10 * 60_000) * 1_000_000n;
const id = (n: number) => n.toString(16).padStart(32, '0');

interface CraftedSpan {
  span: number;
  parent?: number;
  name: string;
  /** Offsets from the trace's start, in nanoseconds: sub-microsecond parts test the duration's rounding. */
  startNs: number;
  endNs: number;
  status?: 0 | 1 | 2;
  /** OTLP span kind (2: server); internal when absent. */
  kind?: number;
  attrs?: Record<string, string | number>;
  droppedAttributesCount?: number;
}
interface CraftedTrace {
  id: string;
  env?: string;
  spans: CraftedSpan[];
}

const llm = (model: string, tokensIn: number, tokensOut: number) => ({
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': tokensIn, 'gen_ai.usage.output_tokens': tokensOut,
});

/** OpenInference spans with their texts (a text left out is not sent). */
const texts = (input?: string, output?: string) => ({
  ...(input !== undefined ? { 'input.value': input } : {}),
  ...(output !== undefined ? { 'output.value': output } : {}),
});
const agent = (input: string, output: string) => ({ 'openinference.span.kind': 'AGENT', ...texts(input, output) });
const oiLlm = (model: string, input?: string, output?: string) => ({ 'openinference.span.kind': 'LLM', 'llm.model_name': model, ...texts(input, output) });
const oiTool = (name: string, input: string, output: string) => ({ 'openinference.span.kind': 'TOOL', 'tool.name': name, ...texts(input, output) });

const TRACES: CraftedTrace[] = [
  {
    // A root, model calls of two models (usage from those only), an error, a flagged span.
    id: id(0xd1),
    env: 'prod',
    spans: [
      { span: 1, name: 'agent', startNs: 999, endNs: 900_000_001, status: 1, attrs: { 'gen_ai.usage.input_tokens': 5000 } },
      { span: 2, parent: 1, name: 'chat a', startNs: 1_000_000, endNs: 300_000_000, attrs: llm('gpt-4o', 1200, 300) },
      { span: 3, parent: 1, name: 'chat b', startNs: 2_000_000, endNs: 400_000_000, status: 2, attrs: llm('gpt-4o-mini', 700, 50) },
      { span: 4, parent: 1, name: 'tool', startNs: 3_000_000, endNs: 5_000_000, attrs: { 'session.id': 'sess-d1', 'user.id': 'user-d1' }, droppedAttributesCount: 2 },
    ],
  },
  {
    // No root has arrived: the name is the earliest span's; no model spans, so every span's usage
    // counts; the texts are the agent's (the earliest span's text is not an agent's or model's).
    id: id(0xd2),
    spans: [
      { span: 7, parent: 99, name: 'late step', startNs: 50_000_000, endNs: 60_000_000, attrs: { 'gen_ai.usage.input_tokens': 10 } },
      { span: 6, parent: 99, name: 'early step', startNs: 10_000_000, endNs: 20_000_500, attrs: { 'gen_ai.usage.input_tokens': 20, 'input.value': 'step input' } },
      { span: 8, parent: 99, name: 'orphan agent', startNs: 15_000_000, endNs: 40_000_000, attrs: agent('orphan question', 'orphan answer') },
    ],
  },
  {
    // Two roots, and a child that starts before both: the earliest root names the trace. All
    // statuses unset. The input is the first root input there is, the output the last one.
    id: id(0xd3),
    env: 'staging',
    spans: [
      { span: 1, name: 'second root', startNs: 30_000_000, endNs: 40_000_000, status: 0, attrs: { 'input.value': 'second question', 'output.value': 'second answer' } },
      { span: 2, name: 'first root', startNs: 20_000_000, endNs: 25_000_000, status: 0, attrs: { 'output.value': 'first answer' } },
      { span: 3, parent: 2, name: 'eager child', startNs: 10_000_000, endNs: 12_000_000, status: 0 },
    ],
  },
  {
    // A model call without token counts (flagged missing_token_counts) and one with a model, ok.
    id: id(0xd4),
    env: 'dev',
    spans: [
      { span: 1, name: 'run', startNs: 0, endNs: 1_000_000_000, status: 1, attrs: { 'user.id': 'user-d4' } },
      { span: 2, parent: 1, name: 'chat', startNs: 1_000, endNs: 2_000, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-3-5-sonnet' } },
      { span: 3, parent: 1, name: 'chat', startNs: 3_000, endNs: 4_000, attrs: llm('claude-3-5-sonnet', 100, 10) },
    ],
  },
  {
    // An HTTP server root without text, an agent under it and a model call under the agent:
    // the trace's input is the agent's (it starts first), its output the agent's (it ends last).
    id: id(0xd5),
    spans: [
      { span: 1, name: 'POST /chat', kind: 2, startNs: 0, endNs: 1_000_000_000, attrs: { 'http.request.method': 'POST', 'http.response.status_code': 200 } },
      { span: 2, parent: 1, name: 'support agent', startNs: 1_000, endNs: 900_000_000, attrs: agent('Where is my order?', 'It ships tomorrow.') },
      { span: 3, parent: 2, name: 'chat', startNs: 2_000, endNs: 500_000_000, attrs: oiLlm('gpt-4o', 'You help with orders. Where is my order?', 'It ships tomorrow, says the model.') },
    ],
  },
  {
    // An HTTP root and model calls without an agent: the input is the first model input by
    // start time (a tool span's input before it, a model call without input, do not count),
    // the output the last model output by end time (a later call without output, a later
    // tool, do not count; a call that started later but ended earlier loses). Its model
    // names repeat a model undated and dated; its two costs add up to 0.30000000000000004.
    id: id(0xd6),
    spans: [
      { span: 1, name: 'POST /v1/answer', kind: 2, startNs: 0, endNs: 1_000_000_000 },
      { span: 2, parent: 1, name: 'lookup', startNs: 1_000, endNs: 2_000, attrs: oiTool('lookup', '{"id":7}', 'order 7: shipped') },
      { span: 3, parent: 1, name: 'chat a', startNs: 5_000, endNs: 100_000_000, attrs: oiLlm('gpt-4o', undefined, 'answer a') },
      { span: 4, parent: 1, name: 'chat b', startNs: 10_000, endNs: 300_000_000, attrs: { ...oiLlm('gpt-4o-2024-08-06', 'prompt b', 'answer b'), 'llm.cost.total': '0.1' } },
      { span: 5, parent: 1, name: 'chat c', startNs: 20_000, endNs: 200_000_000, attrs: { ...oiLlm('gpt-4o-mini', 'prompt c', 'answer c'), 'llm.cost.total': '0.2' } },
      { span: 6, parent: 1, name: 'chat d', startNs: 400_000_000, endNs: 500_000_000, attrs: oiLlm('gpt-4o', 'prompt d', undefined) },
      { span: 7, parent: 1, name: 'send', startNs: 600_000_000, endNs: 700_000_000, attrs: oiTool('send', '{"to":"me"}', 'sent late') },
    ],
  },
  {
    // A root with an input and no output: each text is taken on its own, the input from the
    // root, the output from the model call.
    id: id(0xd7),
    spans: [
      { span: 1, name: 'run', startNs: 0, endNs: 1_000_000, attrs: { 'input.value': 'root question' } },
      { span: 2, parent: 1, name: 'chat', startNs: 1_000, endNs: 900_000, attrs: oiLlm('claude-3-5-sonnet-20241022', 'child prompt', 'child answer') },
    ],
  },
  {
    // A model call priced from the table: 1234 × 0.15 + 567 × 0.6 per million is 0.0005252999999999999 in floating point.
    id: id(0xd8),
    spans: [{ span: 1, name: 'chat gpt-4o-mini', startNs: 0, endNs: 1_000_000, attrs: llm('gpt-4o-mini', 1234, 567) }],
  },
];

function otlp(trace: CraftedTrace) {
  const value = (v: string | number) => (typeof v === 'number' ? { intValue: String(v) } : { stringValue: v });
  const hex16 = (n: number) => n.toString(16).padStart(16, '0');
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: 'detail-test' } }, ...(trace.env ? [{ key: 'deployment.environment.name', value: { stringValue: trace.env } }] : [])] },
    scopeSpans: [
      {
        spans: trace.spans.map((s) => ({
          traceId: trace.id,
          spanId: hex16(s.span),
          parentSpanId: s.parent ? hex16(s.parent) : '',
          name: s.name,
          ...(s.kind !== undefined ? { kind: s.kind } : {}),
          startTimeUnixNano: String(NOW_NS + BigInt(s.startNs)),
          endTimeUnixNano: String(NOW_NS + BigInt(s.endNs)),
          status: { code: s.status ?? 1 },
          attributes: Object.entries(s.attrs ?? {}).map(([key, v]) => ({ key, value: value(v) })),
          ...(s.droppedAttributesCount ? { droppedAttributesCount: s.droppedAttributesCount } : {}),
        })),
      },
    ],
  };
}

beforeAll(async () => {
  svc = await startTestService();
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: TRACES.map(otlp) }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const spans = TRACES.reduce((n, t) => n + t.spans.length, 0);
  await eventually(async () => ((await list()).reduce((n, t) => n + t.spanCount, 0) === spans ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

async function list(): Promise<TraceListItem[]> {
  const res = await svc.api('/api/v1/traces?limit=100');
  expect(res.status).toBe(200);
  return (await readJson<Page<TraceListItem>>(res)).data;
}

describe('GET /traces/{traceId}', () => {
  it('gives the figures the trace list gives, for every branch of the rules', async () => {
    const listed = new Map((await list()).map((t) => [t.traceId, t]));
    for (const trace of TRACES) {
      const res = await svc.api(`/api/v1/traces/${trace.id}`);
      expect(res.status).toBe(200);
      const { spans: _spans, flagDetails: _details, ...detail } = await readJson<TraceDetail>(res);
      const row = listed.get(trace.id);
      expect(row, trace.id).toBeDefined();
      // Costs are sums of floating-point numbers, added in whatever order each side reads them.
      expect({ ...detail, cost: 0 }, trace.id).toEqual({ ...row, cost: 0 });
      expect(detail.cost, trace.id).toBeCloseTo(row!.cost, 12);
    }
  });

  it('gives the figures the engine computes, for every branch of the rules', async () => {
    // Chosen as a list chooses them, over a span range that holds all their spans.
    const chosen = TRACES.map((t) => ({ trace_id: t.id, trace_start_ns: '0', trace_end_ns: String(NOW_NS * 2n), span_count: '1' }));
    const read = (figuredHereUpTo: number) =>
      recordsOfChosenTraces(svc.service.storage, 'default', chosen, msToDateTimeParam(Date.now() + 3_600_000), 1000, figuredHereUpTo);
    const [byEngine, here] = await Promise.all([read(0), read(Infinity)]);
    expect(byEngine.size).toBe(TRACES.length);
    for (const trace of TRACES) {
      const res = await svc.api(`/api/v1/traces/${trace.id}`);
      const { spans: _spans, flagDetails: _details, projectId: _project, ...detail } = await readJson<TraceDetail>(res);
      const engine = byEngine.get(trace.id)!;
      expect({ ...engine, cost: 0 }, trace.id).toEqual({ ...detail, cost: 0 });
      expect(engine.cost, trace.id).toBeCloseTo(detail.cost, 12);
      expect(here.get(trace.id), trace.id).toEqual(detail);
    }
  });

  it('reads the rules as documented on these traces', async () => {
    const detail = async (n: number) => readJson<TraceDetail>(await svc.api(`/api/v1/traces/${id(n)}`));
    const d1 = await detail(0xd1);
    expect([d1.name, d1.status, d1.errorCount, d1.inputTokens, d1.outputTokens, d1.models]).toEqual(['agent', 'error', 1, 1900, 350, ['gpt-4o', 'gpt-4o-mini']]);
    expect([d1.sessionId, d1.userId, d1.environment, d1.durationMs]).toEqual(['sess-d1', 'user-d1', 'prod', 900]);
    const flagged = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [...(n.qualityFlags.length ? [n] : []), ...flagged(n.children)]);
    expect(flagged(d1.spans).map((s) => s.name)).toContain('tool');
    expect(d1.flaggedSpanCount).toBe(flagged(d1.spans).length);
    const d2 = await detail(0xd2);
    expect([d2.name, d2.inputTokens, d2.durationMs, d2.environment]).toEqual(['early step', 30, 50, null]);
    expect([d2.input, d2.output]).toEqual(['orphan question', 'orphan answer']);
    const d3 = await detail(0xd3);
    expect([d3.name, d3.status, d3.spanCount]).toEqual(['first root', 'unset', 3]);
    expect([d3.input, d3.output]).toEqual(['second question', 'second answer']);
    const d4 = await detail(0xd4);
    expect([d4.inputTokens, d4.flaggedSpanCount, d4.models, d4.userId]).toEqual([100, 1, ['claude-3-5-sonnet'], 'user-d4']);
    // Texts of traces whose root has none, taken field by field.
    const d5 = await detail(0xd5);
    expect([d5.name, d5.input, d5.output]).toEqual(['POST /chat', 'Where is my order?', 'It ships tomorrow.']);
    const d6 = await detail(0xd6);
    expect([d6.input, d6.output]).toEqual(['prompt b', 'answer b']);
    expect(d6.models).toEqual(['gpt-4o-2024-08-06', 'gpt-4o-mini']);
    const d7 = await detail(0xd7);
    expect([d7.input, d7.output, d7.models]).toEqual(['root question', 'child answer', ['claude-3-5-sonnet-20241022']]);
    // Costs without float noise, in the detail and in the list.
    expect(d6.cost).toBe(0.3);
    expect((await list()).find((t) => t.traceId === id(0xd6))?.cost).toBe(0.3);
    const d8 = await detail(0xd8);
    const spanDetail = await readJson<{ cost: number }>(await svc.api(`/api/v1/traces/${id(0xd8)}/spans/0000000000000001`));
    expect([d8.cost, d8.spans[0]?.cost, spanDetail.cost]).toEqual([0.0005253, 0.0005253, 0.0005253]);
  });
});
