import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanStatusCode, SpanKind, context, trace } from '@opentelemetry/api';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { otlpExporter, tracerProvider } from '../support/otel.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

async function getJson(path: string) {
  const res = await svc.api(path);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json() as Promise<any>;
}

const MESSAGES = JSON.stringify([
  { role: 'system', parts: [{ type: 'text', content: 'You are the support agent of an online shop. Be brief and precise.' }] },
  { role: 'user', parts: [{ type: 'text', content: 'Where is my order A-1? It was due on Tuesday.' }] },
]);

const OUTPUT_MESSAGES = JSON.stringify([
  { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1' } }], finish_reason: 'tool_call' },
]);

/** Records an agent run: agent → llm (GenAI semconv) → tool (OpenInference), with an error on the tool. */
async function recordAgentRun(kind: 'proto' | 'json', sessionId: string) {
  const provider = tracerProvider(otlpExporter(kind, svc.url, svc.key), {
    'service.name': `support-bot-${kind}`,
    'deployment.environment.name': 'staging',
  });
  const tracer = provider.getTracer('agent-test', '1.2.3');
  let traceId = '';
  let llmSpanId = '';
  const start = Date.now() - 5_000;
  const agent = tracer.startSpan('support-agent', {
    kind: SpanKind.SERVER,
    startTime: start,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-agent',
      'gen_ai.conversation.id': sessionId,
      'user.id': 'user-42',
      'input.value': 'Where is my order?',
      'output.value': 'It ships tomorrow.',
    },
  });
  traceId = agent.spanContext().traceId;
  const ctx = trace.setSpan(context.active(), agent);
  const llm = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: start + 100,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.input.messages': MESSAGES,
        'gen_ai.output.messages': OUTPUT_MESSAGES,
      },
    },
    ctx,
  );
  llmSpanId = llm.spanContext().spanId;
  llm.addEvent('gen_ai.content.completion.chunk', {}, start + 350);
  llm.end(start + 1_100);
  const tool = tracer.startSpan(
    'lookup_order',
    {
      startTime: start + 1_200,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup_order',
        'tool_call.function.arguments': '{"orderId":"A-1"}',
        'input.value': '{"orderId":"A-1"}',
      },
    },
    ctx,
  );
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' });
  tool.end(start + 1_700);
  agent.end(start + 2_000);
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId, llmSpanId };
}

describe.each(['proto', 'json'] as const)('spans sent by the OpenTelemetry SDK (%s exporter)', (kind) => {
  it('come back through the read endpoints with tree, fields, cost and flags', async () => {
    const sessionId = `session-${kind}`;
    const { traceId, llmSpanId } = await recordAgentRun(kind, sessionId);

    const detail = await eventually(async () => {
      const res = await svc.api(`/api/v1/traces/${traceId}`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as any;
      return body.spanCount === 3 ? body : undefined;
    }, 20_000, `trace ${traceId}`);

    expect(detail.traceId).toBe(traceId);
    expect(detail.projectId).toBe('default');
    expect(detail.name).toBe('support-agent');
    expect(detail.status).toBe('error');
    expect(detail.errorCount).toBe(1);
    expect(detail.sessionId).toBe(sessionId);
    expect(detail.userId).toBe('user-42');
    expect(detail.environment).toBe('staging');
    expect(detail.serviceName).toBe(`support-bot-${kind}`);
    expect(detail.inputTokens).toBe(1200);
    expect(detail.outputTokens).toBe(300);
    expect(detail.totalTokens).toBe(1500);
    expect(detail.durationMs).toBeCloseTo(2000, 0);
    // gpt-4o list price: $2.50 / 1M input, $10 / 1M output.
    expect(detail.cost).toBeCloseTo((1200 * 2.5 + 300 * 10) / 1e6, 9);

    // The tree: one root (the agent) with the llm and the tool below it, in start order.
    expect(detail.spans).toHaveLength(1);
    const root = detail.spans[0];
    expect(root.type).toBe('agent');
    expect(root.children.map((s: any) => s.name)).toEqual(['chat gpt-4o', 'lookup_order']);
    const [llm, tool] = root.children;
    expect(llm.type).toBe('llm');
    expect(llm.model).toBe('gpt-4o-2024-08-06');
    expect(llm.provider).toBe('openai');
    expect(llm.costSource).toBe('price_table');
    expect(tool.type).toBe('tool');
    expect(tool.toolName).toBe('lookup_order');
    expect(tool.status).toBe('error');
    expect(tool.statusMessage).toBe('order service timed out');
    // An LLM-less tool span carries no token flags; the llm span has its tokens.
    expect(llm.qualityFlags).not.toContain('missing_token_counts');

    const span = await getJson(`/api/v1/traces/${traceId}/spans/${llmSpanId}`);
    expect(span.spanId).toBe(llmSpanId);
    expect(span.attributes['gen_ai.request.model']).toBe('gpt-4o');
    expect(span.attributes['gen_ai.usage.input_tokens']).toBe('1200');
    // Input and output are what a person reads; the messages come whole, in the API's camelCase.
    expect(span.input).toBe('Where is my order A-1? It was due on Tuesday.');
    expect(span.output).toBe('lookup_order({"orderId":"A-1"})');
    expect(span.inputMessages).toEqual(JSON.parse(MESSAGES));
    expect(span.outputMessages).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1' } }], finishReason: 'tool_call' },
    ]);
    expect(span.systemInstructions).toEqual([]);
    // The prompt is stored once (in its message column) and still returned among the attributes as sent.
    expect(span.attributes['gen_ai.input.messages']).toBe(MESSAGES);
    expect(span.attributes['gen_ai.output.messages']).toBe(OUTPUT_MESSAGES);
    const stored = await svc.service.storage.client.query({
      query: 'SELECT attribute_refs FROM spans FINAL WHERE span_id = {spanId:String}',
      query_params: { spanId: llmSpanId },
      format: 'JSONEachRow',
    });
    expect(((await stored.json()) as { attribute_refs: Record<string, string> }[])[0]!.attribute_refs).toEqual({
      'gen_ai.input.messages': 'input_messages',
      'gen_ai.output.messages': 'output_messages',
    });
    expect(span.resourceAttributes['service.name']).toBe(`support-bot-${kind}`);
    expect(span.scope).toEqual({ name: 'agent-test', version: '1.2.3' });
    expect(span.events.map((e: any) => e.name)).toEqual(['gen_ai.content.completion.chunk']);
    expect(span.timeToFirstTokenMs).toBeCloseTo(250, 0);
    expect(span.qualityFlags).toEqual([]);

    const toolDetail = await getJson(`/api/v1/traces/${traceId}/spans/${tool.spanId}`);
    expect(toolDetail.toolArguments).toBe('{"orderId":"A-1"}');
  });
});

describe('trace list', () => {
  it('pages through traces in both orders with a cursor', async () => {
    const all = await eventually(async () => {
      const body = await getJson('/api/v1/traces?limit=500');
      return body.data.length >= 2 ? body.data : undefined;
    });
    const desc: string[] = [];
    let cursor: string | null = null;
    do {
      const body: any = await getJson(`/api/v1/traces?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      desc.push(...body.data.map((t: any) => t.traceId));
      cursor = body.nextCursor;
    } while (cursor);
    expect(desc).toEqual(all.map((t: any) => t.traceId));
    const asc = await getJson('/api/v1/traces?sortOrder=asc&limit=500');
    expect(asc.data.map((t: any) => t.traceId)).toEqual([...desc].reverse());
    const starts = all.map((t: any) => Date.parse(t.startTime));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
  });

  it('honours the time window', async () => {
    const future = await getJson(`/api/v1/traces?startTime=${new Date(Date.now() + 3_600_000).toISOString()}&endTime=${new Date(Date.now() + 7_200_000).toISOString()}`);
    expect(future.data).toEqual([]);
    expect(future.nextCursor).toBeNull();
  });

  it('answers 400 naming the parameter for bad values', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=5000', 'limit'],
      ['startTime=yesterday', 'startTime'],
      ['sortOrder=sideways', 'sortOrder'],
      ['cursor=not-a-cursor', 'cursor'],
      ['colour=blue', 'colour'],
    ]) {
      const res = await svc.api(`/api/v1/traces?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details?.[0]?.field ?? body.error.message).toContain(field);
    }
    const inverted = await svc.api('/api/v1/traces?startTime=2026-01-02T00:00:00Z&endTime=2026-01-01T00:00:00Z');
    expect(inverted.status).toBe(400);
  });

  it('answers 400 for an id that is not a trace id and 404 for an unknown one', async () => {
    expect((await svc.api('/api/v1/traces/not-a-trace')).status).toBe(400);
    expect((await svc.api(`/api/v1/traces/${'ab'.repeat(16)}`)).status).toBe(404);
    expect((await svc.api(`/api/v1/traces/${'ab'.repeat(16)}/spans/xyz`)).status).toBe(400);
    expect((await svc.api(`/api/v1/traces/${'ab'.repeat(16)}/spans/${'cd'.repeat(8)}`)).status).toBe(404);
  });
});

describe('a stock exporter configured only through the environment, as the README shows', () => {
  const saved = { ...process.env };
  afterAll(() => {
    for (const key of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '/api/v1/traces/otlp'],
    // A base endpoint: the exporter appends /v1/traces itself.
    ['OTEL_EXPORTER_OTLP_ENDPOINT', '/api/v1/traces/otlp'],
  ])('%s=<service>%s', async (variable, path) => {
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env[variable] = `${svc.url}${path}`;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${svc.key}`;
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
    const provider = tracerProvider(new OTLPTraceExporter(), { 'service.name': `env-${variable}` });
    const span = provider.getTracer('env').startSpan('configured-by-env');
    const traceId = span.spanContext().traceId;
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    const trace = await eventually(async () => {
      const res = await svc.api(`/api/v1/traces/${traceId}`);
      return res.status === 200 ? ((await res.json()) as any) : undefined;
    });
    expect(trace.name).toBe('configured-by-env');
    expect(trace.serviceName).toBe(`env-${variable}`);
  });
});
