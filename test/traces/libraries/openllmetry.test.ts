import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import { ANSWER, CALL_COST_UNCACHED, MISSING_MODEL, MODEL, QUESTION, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { openAiCalls, SYSTEM_PROMPT } from '../../support/openai-calls.ts';

// OpenLLMetry (Traceloop)'s instrumentation of the `openai` SDK, applied with its manual
// API; it writes GenAI semconv (`gen_ai.input.messages` / `gen_ai.output.messages` parts JSON).
let h: LibraryHarness;
let calls: ReturnType<typeof openAiCalls>;
beforeAll(async () => {
  h = await startLibraryHarness('openllmetry-test');
  const instrumentation = new OpenAIInstrumentation({ traceContent: true, enrichTokens: false });
  instrumentation.setTracerProvider(h.provider);
  instrumentation.manuallyInstrument(OpenAI);
  calls = openAiCalls(h.fake.baseUrl);
});
afterAll(async () => {
  await h?.stop();
});

describe('OpenLLMetry (Traceloop) on openai', () => {
  it('chat: an llm span with the messages and tokens; no cached or reasoning tokens are sent', async () => {
    const traceId = await h.inTrace('chat', calls.chat);
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({
      name: `chat ${MODEL}`,
      type: 'llm',
      model: MODEL,
      provider: 'openai',
      input: QUESTION,
      output: ANSWER,
      inputTokens: 120,
      outputTokens: 20,
      totalTokens: 140,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(call!.cost).toBeCloseTo(CALL_COST_UNCACHED, 12);
    expect(call!.inputMessages).toEqual([
      { role: 'system', parts: [{ type: 'text', content: SYSTEM_PROMPT }] },
      { role: 'user', parts: [{ type: 'text', content: QUESTION }] },
    ]);
    expect(call!.outputMessages).toMatchObject([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]);
  });

  it('a streamed chat: the text; the usage chunk is not read (no tokens) and no first-token time is sent', async () => {
    const traceId = await h.inTrace('stream', async () => expect(await calls.stream()).toBe(ANSWER));
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ type: 'llm', model: MODEL, input: QUESTION, output: ANSWER, inputTokens: 0, outputTokens: 0, timeToFirstTokenMs: null });
  });

  it('a tool round trip: the tool call asked for, then the tool result sent back and the answer', async () => {
    const traceId = await h.inTrace('tools', async () => expect(await calls.toolRoundTrip()).toBe(WEATHER_ANSWER));
    const [, asking, answering] = await h.spans(traceId, 3);
    expect(asking!.outputMessages).toMatchObject([{ role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } }] }]);
    expect(asking!.output).toContain(TOOL_CALL.name);
    expect(answering!.inputMessages).toMatchObject([{ role: 'user' }, { role: 'assistant' }, { role: 'tool', parts: [{ type: 'tool_call_response', id: TOOL_CALL.id }] }]);
    expect(JSON.stringify(answering!.inputMessages[2])).toContain(TOOL_RESULT.forecast);
    expect(answering!.output).toBe(WEATHER_ANSWER);
  });

  it('an embedding: not instrumented (no span)', async () => {
    const traceId = await h.inTrace('embed', calls.embed);
    expect(h.fake.requests.at(-1)!.path).toBe('/v1/embeddings');
    expect((await h.spans(traceId, 1)).map((s) => s.name)).toEqual(['embed']);
  });

  it('a refused call: no span at all (its span is ended on a result, never on a rejection)', async () => {
    const traceId = await h.inTrace('fail', calls.fail);
    expect(h.fake.requests.at(-1)!.model).toBe(MISSING_MODEL);
    expect((await h.spans(traceId, 1)).map((s) => s.name)).toEqual(['fail']);
  });
});
