import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context } from '@opentelemetry/api';
import OpenAI from 'openai';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { setSession, setUser } from '@arizeai/openinference-core';
import { ANSWER, CALL_COST, EMBEDDING_MODEL, MISSING_MODEL, MODEL, QUESTION, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { openAiCalls, SYSTEM_PROMPT } from '../../support/openai-calls.ts';

// OpenInference's instrumentation of the `openai` SDK, applied with its manual API (its
// require hook does not see the ESM import), session and user set through openinference-core.
let h: LibraryHarness;
let calls: ReturnType<typeof openAiCalls>;
beforeAll(async () => {
  h = await startLibraryHarness('openinference-test');
  new OpenAIInstrumentation({ tracerProvider: h.provider }).manuallyInstrument(OpenAI);
  calls = openAiCalls(h.fake.baseUrl);
});
afterAll(async () => {
  await h?.stop();
});

/** Runs `call` with the session and user OpenInference propagates through the context. */
function asUser<T>(call: () => Promise<T>): Promise<T> {
  return context.with(setUser(setSession(context.active(), { sessionId: 'session-oi' }), { userId: 'user-oi' }), call);
}

describe('OpenInference on openai', () => {
  it('chat: an llm span with the messages, tokens, cached and reasoning tokens, cost, session and user', async () => {
    const traceId = await h.inTrace('chat', () => asUser(calls.chat));
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({
      name: 'OpenAI Chat Completions',
      type: 'llm',
      platform: 'openinference',
      model: MODEL,
      provider: 'openai',
      input: QUESTION,
      output: ANSWER,
      inputTokens: 120,
      outputTokens: 20,
      cachedInputTokens: 64,
      reasoningTokens: 8,
      sessionId: 'session-oi',
      userId: 'user-oi',
      status: 'ok',
    });
    expect(call!.cost).toBeCloseTo(CALL_COST, 12);
    expect(call!.inputMessages).toEqual([
      { role: 'system', parts: [{ type: 'text', content: SYSTEM_PROMPT }] },
      { role: 'user', parts: [{ type: 'text', content: QUESTION }] },
    ]);
    expect(call!.outputMessages).toMatchObject([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]);
  });

  it('a streamed chat: the text, but no usage (the instrumentation does not read the usage chunk) and no first-token time', async () => {
    const traceId = await h.inTrace('stream', async () => expect(await calls.stream()).toBe(ANSWER));
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ type: 'llm', model: MODEL, input: QUESTION, output: ANSWER, inputTokens: 0, outputTokens: 0, timeToFirstTokenMs: null });
  });

  it('a tool round trip: the tool call asked for, then the tool result sent back and the answer', async () => {
    const traceId = await h.inTrace('tools', async () => expect(await calls.toolRoundTrip()).toBe(WEATHER_ANSWER));
    const [, asking, answering] = await h.spans(traceId, 3);
    expect(asking!.outputMessages).toMatchObject([{ role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } }] }]);
    expect(asking!.output).toContain(TOOL_CALL.name);
    expect(answering!.inputMessages).toMatchObject([
      { role: 'user' },
      { role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: TOOL_CALL.id }] },
    ]);
    expect(JSON.stringify(answering!.inputMessages[2])).toContain(TOOL_RESULT.forecast);
    expect(answering!.output).toBe(WEATHER_ANSWER);
  });

  it('an embedding: its model and input text', async () => {
    const traceId = await h.inTrace('embed', calls.embed);
    const [, call] = await h.spans(traceId, 2);
    expect(call).toMatchObject({ name: 'OpenAI Embeddings', type: 'embedding', model: EMBEDDING_MODEL, provider: 'openai', input: 'sunny day' });
  });

  it('a refused call: no span at all (the instrumentation ends its span only on a result, never on a rejection)', async () => {
    const traceId = await h.inTrace('fail', calls.fail);
    expect(h.fake.requests.at(-1)!.model).toBe(MISSING_MODEL);
    const spans = await h.spans(traceId, 1);
    expect(spans.map((s) => s.name)).toEqual(['fail']);
  });
});
