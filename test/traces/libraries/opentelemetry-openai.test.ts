import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metrics } from '@opentelemetry/api';
import * as openaiModule from 'openai';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanDetail } from '../../support/api-types.ts';
import { ANSWER, CALL_COST_UNCACHED, EMBEDDING_MODEL, MISSING_MODEL, MODEL, QUESTION, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, WEATHER_QUESTION, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { SYSTEM_PROMPT, openAiCalls } from '../../support/openai-calls.ts';
import { otlpLogExporter } from '../../support/otel-logs.ts';
import { eventually } from '../../support/service.ts';

// The OpenTelemetry contrib instrumentation of the `openai` SDK. It has no manual API and its
// require hook does not see the ESM import, so its own module patch is applied to the ESM
// namespace (the path its import-in-the-middle hook takes). It sends prompts and completions
// as OTLP log records (GenAI events, with `captureMessageContent` or
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT), not on the span: the spans carry model,
// tokens and status; the records go through the stock logs exporter and are joined to them.
let h: LibraryHarness;
let calls: ReturnType<typeof openAiCalls>;
let loggerProvider: LoggerProvider;
beforeAll(async () => {
  h = await startLibraryHarness('otel-openai-test');
  loggerProvider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otel-openai-test' }),
    processors: [new BatchLogRecordProcessor({ exporter: otlpLogExporter('proto', h.svc.url, h.svc.key), scheduledDelayMillis: 50 })],
  });
  const instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
  instrumentation.setTracerProvider(h.provider);
  instrumentation.setLoggerProvider(loggerProvider);
  // Its metric instruments exist only once a meter provider is set.
  instrumentation.setMeterProvider(metrics.getMeterProvider());
  for (const definition of instrumentation.getModuleDefinitions()) definition.patch?.(openaiModule);
  calls = openAiCalls(h.fake.baseUrl);
});
afterAll(async () => {
  await loggerProvider?.shutdown();
  await h?.stop();
});

/** The trace's spans once each model call has its records folded in (`joined` says when). */
async function joinedSpans(traceId: string, count: number, joined: (call: SpanDetail) => boolean): Promise<SpanDetail[]> {
  return eventually(
    async () => {
      const spans = await h.spans(traceId, count, () => loggerProvider.forceFlush());
      return spans.slice(1).every(joined) ? spans : undefined;
    },
    20_000,
    `the log records of trace ${traceId} on its spans`,
  );
}

const text = (content: string) => ({ type: 'text', content });
const askedForTool = { type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: JSON.parse(TOOL_CALL.arguments) };

describe('@opentelemetry/instrumentation-openai', () => {
  it('chat: an llm span with model, provider and tokens, and the prompt and answer from its log records', async () => {
    const traceId = await h.inTrace('chat', calls.chat);
    const [, call] = await joinedSpans(traceId, 2, (s) => s.output !== '');
    expect(call).toMatchObject({ name: `chat ${MODEL}`, type: 'llm', platform: 'otel-genai', model: MODEL, provider: 'openai', inputTokens: 120, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(call!.cost).toBeCloseTo(CALL_COST_UNCACHED, 12);
    // The system prompt comes as a message event: it stays in the messages, as span events would leave it.
    expect(call!.inputMessages).toEqual([
      { role: 'system', parts: [text(SYSTEM_PROMPT)] },
      { role: 'user', parts: [text(QUESTION)] },
    ]);
    expect(call!.outputMessages).toEqual([{ role: 'assistant', finishReason: 'stop', parts: [text(ANSWER)] }]);
    expect([call!.input, call!.output]).toEqual([QUESTION, ANSWER]);
    // The records are folded into the span, not shown as events of it.
    expect(call!.events).toEqual([]);
  });

  it('a streamed chat: the usage chunk read as tokens, the streamed answer from its records; no first-token time is sent', async () => {
    const traceId = await h.inTrace('stream', async () => expect(await calls.stream()).toBe(ANSWER));
    const [, call] = await joinedSpans(traceId, 2, (s) => s.output !== '');
    expect(call).toMatchObject({ type: 'llm', model: MODEL, inputTokens: 120, outputTokens: 20, timeToFirstTokenMs: null, input: QUESTION, output: ANSWER });
    expect(call!.outputMessages).toEqual([{ role: 'assistant', finishReason: 'stop', parts: [text(ANSWER)] }]);
  });

  it('a tool round trip: the call asked for on the first model span, the conversation in order on the second', async () => {
    const traceId = await h.inTrace('tools', async () => expect(await calls.toolRoundTrip()).toBe(WEATHER_ANSWER));
    const [, asks, answers] = await joinedSpans(traceId, 3, (s) => s.output !== '');
    expect([asks, answers].map((s) => [s!.type, s!.attributes['gen_ai.response.finish_reasons']])).toEqual([
      ['llm', '["tool_calls"]'],
      ['llm', '["stop"]'],
    ]);
    expect(asks!.inputMessages).toEqual([{ role: 'user', parts: [text(WEATHER_QUESTION)] }]);
    expect(asks!.outputMessages).toEqual([{ role: 'assistant', finishReason: 'tool_calls', parts: [askedForTool] }]);
    expect([asks!.input, asks!.output]).toEqual([WEATHER_QUESTION, `${TOOL_CALL.name}(${TOOL_CALL.arguments})`]);
    // All three messages of the second call carry one timestamp: they read back in the order sent.
    expect(answers!.inputMessages).toEqual([
      { role: 'user', parts: [text(WEATHER_QUESTION)] },
      { role: 'assistant', parts: [askedForTool] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: TOOL_CALL.id, response: JSON.stringify(TOOL_RESULT) }] },
    ]);
    expect(answers!.outputMessages).toEqual([{ role: 'assistant', finishReason: 'stop', parts: [text(WEATHER_ANSWER)] }]);
    expect(answers!.output).toBe(WEATHER_ANSWER);
    // No tool span: the tool runs in the application, unseen by the instrumentation.
    expect(answers!.toolName).toBeNull();
  });

  it('an embedding: an embedding span with its model, and no texts (the instrumentation sends no records for it)', async () => {
    const traceId = await h.inTrace('embed', calls.embed);
    const [, call] = await h.spans(traceId, 2, () => loggerProvider.forceFlush());
    expect(call).toMatchObject({ name: `embeddings ${EMBEDDING_MODEL}`, type: 'embedding', model: EMBEDDING_MODEL, provider: 'openai', input: '', output: '' });
  });

  it('a refused call: error status with the provider message and error.type; the prompt from its record, no answer', async () => {
    const traceId = await h.inTrace('fail', calls.fail);
    const [, call] = await joinedSpans(traceId, 2, (s) => s.input !== '');
    expect(call).toMatchObject({ type: 'llm', model: MISSING_MODEL, status: 'error', statusMessage: expect.stringContaining('does not exist'), input: QUESTION, output: '' });
    expect(call!.attributes['error.type']).toBe('NotFoundError');
    expect(call!.inputMessages).toEqual([{ role: 'user', parts: [text(QUESTION)] }]);
    expect(call!.outputMessages).toEqual([]);
  });
});
