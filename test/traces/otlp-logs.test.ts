import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, trace, type Context } from '@opentelemetry/api';
import type { LogRecord } from '@opentelemetry/api-logs';
import type { SpanDetail } from '../support/api-types.ts';
import { emitLogRecords, otlpLogExporter } from '../support/otel-logs.ts';
import { otlpExporter, tracerProvider } from '../support/otel.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';

// GenAI events sent as OTLP log records (as @opentelemetry/instrumentation-openai sends
// prompts and completions) through the stock logs exporters, joined to their spans.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { grpc: true });
});
afterAll(async () => {
  await svc?.stop();
});

interface Score {
  id: string;
  spanId: string | null;
  name: string;
  value: number | null;
  stringValue: string | null;
  comment: string;
  source: string;
}

/** A chat span, started and ended but exported only by `send`: records can go before or after it. */
function chatSpan(attributes: Record<string, string | number> = {}) {
  const provider = tracerProvider(otlpExporter('proto', svc.url, svc.key), { 'service.name': 'logs-test' });
  const span = provider.getTracer('@opentelemetry/instrumentation-openai').startSpan('chat gpt-4o-mini', {
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 8, ...attributes },
  });
  const ctx = trace.setSpan(context.active(), span);
  span.end();
  const { traceId, spanId } = span.spanContext();
  return {
    traceId,
    spanId,
    ctx,
    send: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}

/** The events @opentelemetry/instrumentation-openai emits for one chat call, inside the call's span. */
function conversation(ctx: Context, question: string, answer: string): LogRecord[] {
  const at = Date.now();
  return [
    { eventName: 'gen_ai.system.message', context: ctx, timestamp: at, attributes: { 'gen_ai.system': 'openai' }, body: { content: 'You answer briefly.' } },
    { eventName: 'gen_ai.user.message', context: ctx, timestamp: at + 1, attributes: { 'gen_ai.system': 'openai' }, body: { content: question } },
    {
      eventName: 'gen_ai.choice',
      context: ctx,
      timestamp: at + 2,
      attributes: { 'gen_ai.system': 'openai' },
      body: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer } },
    },
  ];
}

async function spanDetail(traceId: string, spanId: string, has: (s: SpanDetail) => boolean): Promise<SpanDetail> {
  return eventually(async () => {
    const answer = await jsonCall<SpanDetail>(svc, `/api/v1/traces/${traceId}/spans/${spanId}`);
    return answer.status === 200 && has(answer.body) ? answer.body : undefined;
  }, 20_000, `span ${spanId} with its messages`);
}

async function scoresOf(traceId: string, count: number): Promise<Score[]> {
  return eventually(async () => {
    const answer = await jsonCall<{ data: Score[] }>(svc, `/api/v1/trace-scores?traceId=${traceId}`);
    return answer.status === 200 && answer.body.data.length >= count ? answer.body.data : undefined;
  }, 20_000, `${count} scores of ${traceId}`);
}

/** Posts a raw logs body; answers status, content type and the body as text. */
async function postLogs(body: string | Uint8Array<ArrayBuffer>, contentType: string, key: string | null = svc.key) {
  const res = await svc.api('/api/v1/traces/otlp/v1/logs', { method: 'POST', body, headers: { 'content-type': contentType }, key });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

const expectConversation = (span: SpanDetail, question: string, answer: string) => {
  expect(span.systemInstructions ?? []).toEqual([]);
  expect(span.inputMessages).toEqual([
    { role: 'system', parts: [{ type: 'text', content: 'You answer briefly.' }] },
    { role: 'user', parts: [{ type: 'text', content: question }] },
  ]);
  expect(span.outputMessages).toEqual([{ role: 'assistant', finishReason: 'stop', parts: [{ type: 'text', content: answer }] }]);
  expect(span.input).toBe(question);
  expect(span.output).toBe(answer);
};

describe('OTLP logs: GenAI event records joined to their spans', () => {
  it('folds records that arrive before their span (protobuf exporter)', async () => {
    const chat = chatSpan();
    await emitLogRecords(otlpLogExporter('proto', svc.url, svc.key), conversation(chat.ctx, 'Where is my parcel?', 'It ships tomorrow.'));
    await chat.send();
    const span = await spanDetail(chat.traceId, chat.spanId, (s) => s.output === 'It ships tomorrow.');
    expectConversation(span, 'Where is my parcel?', 'It ships tomorrow.');
    // Span search and the trace list's previews read the same texts.
    const search = encodeURIComponent('ships tomorrow');
    const found = await jsonCall<{ data: Array<{ spanId: string }> }>(svc, `/api/v1/traces/spans?search=${search}`);
    expect(found.body.data.map((s) => s.spanId)).toEqual([chat.spanId]);
    const traces = await jsonCall<{ data: Array<{ traceId: string; input: string; output: string }> }>(svc, `/api/v1/traces?search=${search}`);
    expect(traces.body.data.map((t) => [t.traceId, t.input, t.output])).toEqual([[chat.traceId, 'Where is my parcel?', 'It ships tomorrow.']]);
  });

  it('folds records that arrive after their span (JSON exporter), in more than one batch', async () => {
    const chat = chatSpan();
    await chat.send();
    await spanDetail(chat.traceId, chat.spanId, () => true);
    const [system, user, choice] = conversation(chat.ctx, 'Can I return shoes?', 'Yes, within 30 days.');
    await emitLogRecords(otlpLogExporter('json', svc.url, svc.key), [system!, user!]);
    const half = await spanDetail(chat.traceId, chat.spanId, (s) => s.input === 'Can I return shoes?');
    expect(half.outputMessages ?? []).toEqual([]);
    await emitLogRecords(otlpLogExporter('json', svc.url, svc.key), [choice!]);
    const span = await spanDetail(chat.traceId, chat.spanId, (s) => s.output === 'Yes, within 30 days.');
    expectConversation(span, 'Can I return shoes?', 'Yes, within 30 days.');
  });

  it('keeps one copy of replayed records, and of a span sent again', async () => {
    const chat = chatSpan();
    const records = conversation(chat.ctx, 'What is the VAT?', 'It is 20%.');
    await emitLogRecords(otlpLogExporter('proto', svc.url, svc.key), records);
    await chat.send();
    await spanDetail(chat.traceId, chat.spanId, (s) => s.output === 'It is 20%.');
    await emitLogRecords(otlpLogExporter('json', svc.url, svc.key), records);
    await emitLogRecords(otlpLogExporter('grpc', svc.grpcAddress!, svc.key), records);
    // Both replays processed: their writer jobs left the queue (a fresh marker record proves the order).
    const marker = chatSpan();
    await emitLogRecords(otlpLogExporter('proto', svc.url, svc.key), conversation(marker.ctx, 'marker', 'done'));
    await marker.send();
    await spanDetail(marker.traceId, marker.spanId, (s) => s.output === 'done');
    const span = await spanDetail(chat.traceId, chat.spanId, () => true);
    expectConversation(span, 'What is the VAT?', 'It is 20%.');
    const trace = await jsonCall<{ spans: Array<{ spanId: string }> }>(svc, `/api/v1/traces/${chat.traceId}`);
    expect(trace.body.spans.map((s) => s.spanId)).toEqual([chat.spanId]);
  });

  it('refuses records without a span context, and others than GenAI events, with the reason', async () => {
    const chat = chatSpan();
    const outside = { eventName: 'gen_ai.user.message', body: { content: 'no span' }, traceId: '', spanId: '' };
    const plainLog = { body: { stringValue: 'cache warmed' }, traceId: chat.traceId, spanId: chat.spanId };
    const kept = { eventName: 'gen_ai.user.message', body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'kept' } }] } }, traceId: chat.traceId, spanId: chat.spanId, timeUnixNano: String(Date.now() * 1e6) };
    const body = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [outside, plainLog, kept] }] }] });
    const answer = await postLogs(body, 'application/json');
    expect(answer.status).toBe(200);
    const partial = JSON.parse(answer.text).partialSuccess;
    expect(partial.rejectedLogRecords).toBe('2');
    expect(partial.errorMessage).toMatch(/^rejected 2 of 3 log records: 1 without a span context .*, 1 not GenAI message or evaluation events/);
    await chat.send();
    const span = await spanDetail(chat.traceId, chat.spanId, (s) => s.input === 'kept');
    expect(span.inputMessages).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'kept' }] }]);
  });

  it('answers bad bodies and missing keys in the OTLP error shape', async () => {
    const bad = await postLogs(Uint8Array.from([0x0a, 0x05, 0x01]), 'application/x-protobuf');
    expect([bad.status, bad.contentType]).toEqual([400, 'application/x-protobuf']);
    const badJson = await postLogs('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":7}]}]}]}', 'application/json');
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.text)).toEqual({ code: 3, message: expect.stringContaining('resourceLogs[0].scopeLogs[0].logRecords[0].traceId') });
    const wrongType = await postLogs('x', 'text/plain');
    expect(wrongType.status).toBe(415);
    const noKey = await postLogs('{}', 'application/json', null);
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.text)).toEqual({ code: 16, message: expect.any(String) });
    const get = await svc.api('/api/v1/traces/otlp/v1/logs');
    expect(get.status).toBe(405);
  });
});

describe('evaluation results in telemetry', () => {
  const evaluation = (name: string, extra: Record<string, string | number>) => ({
    'gen_ai.evaluation.name': name,
    'gen_ai.response.id': 'chatcmpl-42',
    ...extra,
  });

  it('become scores on their span, from span events and from log records, once each however often sent', async () => {
    const chat = chatSpan();
    const at = Date.now();
    // A span event (recorded on a span not yet ended would need the SDK's span; the test adds it to a new one).
    const provider = tracerProvider(otlpExporter('json', svc.url, svc.key), { 'service.name': 'logs-test' });
    const judged = provider.getTracer('evals').startSpan('chat judged', { attributes: { 'gen_ai.operation.name': 'chat' } }, chat.ctx);
    judged.addEvent('gen_ai.evaluation.result', evaluation('relevance', { 'gen_ai.evaluation.score.value': 0.8, 'gen_ai.evaluation.explanation': 'On topic.' }), at);
    judged.end();
    await provider.forceFlush();
    await provider.shutdown();
    const record: LogRecord = {
      eventName: 'gen_ai.evaluation.result',
      context: chat.ctx,
      timestamp: at,
      attributes: evaluation('correctness', { 'gen_ai.evaluation.score.label': 'pass', 'gen_ai.evaluation.score.value': 1 }),
    };
    await emitLogRecords(otlpLogExporter('proto', svc.url, svc.key), [record]);
    await emitLogRecords(otlpLogExporter('json', svc.url, svc.key), [record]);
    await chat.send();

    const scores = await scoresOf(chat.traceId, 2);
    const byName = Object.fromEntries(scores.map((s) => [s.name, s]));
    expect(byName.relevance).toMatchObject({ spanId: judged.spanContext().spanId, value: 0.8, comment: 'On topic.', source: 'telemetry' });
    expect(byName.correctness).toMatchObject({ spanId: chat.spanId, value: 1, stringValue: 'pass', source: 'telemetry' });
    // Sent once more: still one score each.
    await emitLogRecords(otlpLogExporter('grpc', svc.grpcAddress!, svc.key), [record]);
    const marker = chatSpan();
    await emitLogRecords(otlpLogExporter('grpc', svc.grpcAddress!, svc.key), conversation(marker.ctx, 'marker', 'done'));
    await marker.send();
    await spanDetail(marker.traceId, marker.spanId, (s) => s.output === 'done');
    expect((await scoresOf(chat.traceId, 2)).map((s) => s.name).sort()).toEqual(['correctness', 'relevance']);
  });
});
