import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileTraceQuery } from '@aos/storage';
import { msToDateTimeParam } from '../../packages/storage/src/sql/values.ts';
import { TRACE_COLUMNS_SQL } from '../../packages/storage/src/traces/aggregate.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// Compiled query-language conditions run against the real engine, over the same
// aggregated trace rows the trace list selects from.

let svc: TestService;

type Attr = string | number | string[];
interface Crafted {
  id: number;
  env: string;
  spans: Array<{ name: string; ms: number; error?: boolean; attrs?: Record<string, Attr> }>;
}

const hex = (n: number) => n.toString(16).padStart(32, '0');
const LONG_INPUT = 'please handle this long-refund-request for order 1234, the parcel arrived broken and late';

const TRACES: Crafted[] = [
  {
    id: 0xa1,
    env: 'prod',
    spans: [
      { name: 'agent', ms: 100, attrs: { 'openinference.span.kind': 'AGENT', 'session.id': 's1', 'user.id': 'u1', 'input.value': LONG_INPUT } },
      { name: 'search', ms: 20, error: true, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' } },
    ],
  },
  {
    id: 0xa2,
    env: 'staging',
    spans: [
      {
        name: 'chat',
        ms: 3000,
        attrs: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 1000,
          'gen_ai.usage.output_tokens': 100,
          'customer.tier': 'gold',
          retries: 3,
        },
      },
    ],
  },
  {
    id: 0xa3,
    env: 'prod',
    spans: [
      { name: 'agent run', ms: 500, attrs: { 'tag.tags': ['beta', 'internal'], 'customer.tier': 'silver' } },
      { name: 'search', ms: 30, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' } },
    ],
  },
  {
    id: 0xa4,
    env: 'dev',
    spans: [{ name: 'Checkout Flow', ms: 90_000, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-3-5-sonnet' } }],
  },
  {
    id: 0xa5,
    env: 'prod',
    spans: [{ name: 'batch-job', ms: 2500, attrs: { 'ai.telemetry.metadata.experiment': 'exp-7' } }],
  },
];

function attributeValue(v: Attr) {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  return typeof v === 'number' ? { intValue: String(v) } : { stringValue: v };
}

function resourceSpans(trace: Crafted, base: number) {
  return {
    resource: { attributes: [{ key: 'deployment.environment.name', value: { stringValue: trace.env } }] },
    scopeSpans: [
      {
        spans: trace.spans.map((s, i) => ({
          traceId: hex(trace.id),
          spanId: (i + 1).toString(16).padStart(16, '0'),
          parentSpanId: i === 0 ? '' : '0000000000000001',
          name: s.name,
          startTimeUnixNano: String(base + i * 1e6),
          endTimeUnixNano: String(base + i * 1e6 + s.ms * 1e6),
          status: { code: s.error ? 2 : 1 },
          attributes: Object.entries(s.attrs ?? {}).map(([key, v]) => ({ key, value: attributeValue(v) })),
        })),
      },
    ],
  };
}

const now = Date.now();

async function matching(query: string): Promise<number[]> {
  const compiled = compileTraceQuery(query);
  const result = await svc.service.storage.client.query({
    query: `
      SELECT trace_id FROM (
        SELECT ${TRACE_COLUMNS_SQL}
        FROM spans FINAL
        WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
        GROUP BY trace_id
      )
      WHERE ${compiled.condition}
      ORDER BY trace_id`,
    query_params: {
      projectId: 'default',
      scanStart: msToDateTimeParam(now - 3_600_000),
      scanEnd: msToDateTimeParam(now + 3_600_000),
      ...compiled.params,
    },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ trace_id: string }>();
  return rows.map((r) => parseInt(r.trace_id, 16));
}

beforeAll(async () => {
  svc = await startTestService();
  const base = (now - 10 * 60_000) * 1e6;
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: TRACES.map((t, i) => resourceSpans(t, base + i * 1e9)) }),
  });
  expect(res.status).toBe(200);
  await eventually(async () => ((await matching('spans >= 1')).length === TRACES.length ? true : undefined));
  const scores = await svc.api('/api/v1/trace-scores', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      scores: [
        { traceId: hex(0xa2), name: 'helpfulness', value: 0.9 },
        { traceId: hex(0xa3), name: 'helpfulness', value: 0.2 },
        { traceId: hex(0xa3), name: 'verdict', stringValue: 'pass' },
      ],
    }),
  });
  expect(scores.status, await scores.clone().text()).toBeLessThan(300);
  await eventually(async () => ((await matching('score["verdict"] exists')).length === 1 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

describe('query language against the engine', () => {
  it('stores the long input.value as a reference, so attributes[...] must follow it', async () => {
    const result = await svc.service.storage.client.query({
      query: "SELECT attribute_refs['input.value'] AS ref, mapContains(attributes, 'input.value') AS inline FROM spans FINAL WHERE trace_id = {t:String} AND parent_span_id = ''",
      query_params: { t: hex(0xa1) },
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([{ ref: 'input', inline: 0 }]);
  });

  it.each([
    ['status = "error"', [0xa1]],
    ['status != "error"', [0xa2, 0xa3, 0xa4, 0xa5]],
    ['duration > 2s', [0xa2, 0xa4, 0xa5]],
    ['duration >= 1.5m', [0xa4]],
    ['duration < 150ms', [0xa1]],
    ['duration > 2500', [0xa2, 0xa4]],
    ['cost > 0', [0xa2]],
    ['tokens = 1100 and inputTokens >= 1000 and outputTokens < 101', [0xa2]],
    ['errors >= 1 and spans = 2', [0xa1]],
    ['model = "gpt-4o"', [0xa2]],
    ['model contains "CLAUDE"', [0xa4]],
    ['model exists', [0xa2, 0xa4]],
    ['provider = "anthropic"', [0xa4]],
    ['provider != "openai"', [0xa1, 0xa3, 0xa4, 0xa5]],
    ['name contains "checkout"', [0xa4]],
    ['name startswith "agent"', [0xa1, 0xa3]],
    ['input contains "LONG-REFUND"', [0xa1]],
    ['environment in ["prod", "dev"]', [0xa1, 0xa3, 0xa4, 0xa5]],
    ['environment = "prod" and not status = "error" or name = "chat"', [0xa2, 0xa3, 0xa5]],
    ['environment = "prod" and (not status = "error" or name = "chat")', [0xa3, 0xa5]],
    ['not (environment = "prod" or environment = "dev")', [0xa2]],
    ['has span(type = "tool" and name = "search" and status = "error")', [0xa1]],
    ['has span(type = "tool" and tool = "search")', [0xa1, 0xa3]],
    ['not has span(type = "tool") and environment = "prod"', [0xa5]],
    ['has span(duration > 1m)', [0xa4]],
    ['attributes["customer.tier"] = "gold"', [0xa2]],
    ['attributes["customer.tier"] in ["gold", "silver"]', [0xa2, 0xa3]],
    ['attributes["customer.tier"] != "gold"', [0xa1, 0xa3, 0xa4, 0xa5]],
    ['attributes["retries"] >= 3', [0xa2]],
    ['attributes["retries"] in [1, 3]', [0xa2]],
    ['attributes["input.value"] contains "long-refund-request"', [0xa1]],
    ['attributes["input.value"] exists', [0xa1]],
    ['has span(attributes["input.value"] startswith "please handle")', [0xa1]],
    ['flag = "missing_token_counts"', [0xa4]],
    ['has span(flag exists and type = "llm")', [0xa4]],
    ['tag = "beta"', [0xa3]],
    ['tag contains "intern"', [0xa3]],
    ['metadata["experiment"] = "exp-7"', [0xa5]],
    ['resource["deployment.environment.name"] = "dev"', [0xa4]],
    ['score["helpfulness"] > 0.5', [0xa2]],
    ['score["helpfulness"] exists', [0xa2, 0xa3]],
    ['score["helpfulness"] != 0.9', [0xa1, 0xa3, 0xa4, 0xa5]],
    ['score["helpfulness"] in [0.2, 0.3]', [0xa3]],
    ['score["verdict"] = "pass"', [0xa3]],
    ['session exists', [0xa1]],
    ['not session exists', [0xa2, 0xa3, 0xa4, 0xa5]],
    ['user = "u1" or platform = "vercel-ai"', [0xa1]],
  ])('%s', async (query, expected) => {
    expect(await matching(query as string)).toEqual(expected);
  });

  it('treats injection attempts as plain values', async () => {
    expect(await matching(`name = "x' OR 1=1 --"`)).toEqual([]);
    expect(await matching(`attributes["k') OR 1=1 --"] exists`)).toEqual([]);
  });
});
