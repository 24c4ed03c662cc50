import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metrics } from '@opentelemetry/api';
import * as openaiModule from 'openai';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { ANSWER, CALL_COST_UNCACHED, EMBEDDING_MODEL, MISSING_MODEL, MODEL, WEATHER_ANSWER, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { openAiCalls } from '../../support/openai-calls.ts';

// The OpenTelemetry contrib instrumentation of the `openai` SDK. It has no manual API and its
// require hook does not see the ESM import, so its own module patch is applied to the ESM
// namespace (the path its import-in-the-middle hook takes). It sends prompts and completions
// as OTLP log records, not on the span: the spans carry model, tokens and status only.
let h: LibraryHarness;
let calls: ReturnType<typeof openAiCalls>;
beforeAll(async () => {
  h = await startLibraryHarness('otel-openai-test');
  const instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
  instrumentation.setTracerProvider(h.provider);
  // Its metric instruments exist only once a meter provider is set.
  instrumentation.setMeterProvider(metrics.getMeterProvider());
  for (const definition of instrumentation.getModuleDefinitions()) definition.patch?.(openaiModule);
  calls = openAiCalls(h.fake.baseUrl);
});
afterAll(async () => {
  await h?.stop();
});

describe('@opentelemetry/instrumentation-openai', () => {
  it('chat: an llm span with model, provider and tokens; no texts on the span, no cached or reasoning tokens', async () => {
    const traceId = await h.inTrace('chat', calls.chat);
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ name: `chat ${MODEL}`, type: 'llm', platform: 'otel-genai', model: MODEL, provider: 'openai', inputTokens: 120, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0, input: '', output: '' });
    expect(call!.cost).toBeCloseTo(CALL_COST_UNCACHED, 12);
  });

  it('a streamed chat: the usage chunk read as tokens; no first-token time is sent', async () => {
    const traceId = await h.inTrace('stream', async () => expect(await calls.stream()).toBe(ANSWER));
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ type: 'llm', model: MODEL, inputTokens: 120, outputTokens: 20, timeToFirstTokenMs: null });
  });

  it('a tool round trip: two model calls (the tool runs in the application, unseen)', async () => {
    const traceId = await h.inTrace('tools', async () => expect(await calls.toolRoundTrip()).toBe(WEATHER_ANSWER));
    const spans = await h.spans(traceId, 3);
    expect(spans.slice(1).map((s) => [s.type, s.attributes['gen_ai.response.finish_reasons']])).toEqual([
      ['llm', '["tool_calls"]'],
      ['llm', '["stop"]'],
    ]);
  });

  it('an embedding: an embedding span with its model', async () => {
    const traceId = await h.inTrace('embed', calls.embed);
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ name: `embeddings ${EMBEDDING_MODEL}`, type: 'embedding', model: EMBEDDING_MODEL, provider: 'openai' });
  });

  it('a refused call: error status with the provider message and error.type', async () => {
    const traceId = await h.inTrace('fail', calls.fail);
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ type: 'llm', model: MISSING_MODEL, status: 'error', statusMessage: expect.stringContaining('does not exist') });
    expect(call!.attributes['error.type']).toBe('NotFoundError');
    expect(call!.input).toBe('');
  });
});
