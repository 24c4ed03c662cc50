import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAI } from '@ai-sdk/openai';
import { embed, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import {
  ANSWER,
  CALL_COST,
  EMBEDDING_MODEL,
  MISSING_MODEL,
  MODEL,
  QUESTION,
  TOOL_CALL,
  TOOL_RESULT,
  WEATHER_ANSWER,
  WEATHER_QUESTION,
  spanNamed,
  startLibraryHarness,
  type LibraryHarness,
} from '../../support/libraries.ts';

// The Vercel AI SDK (v6) with its own telemetry (`experimental_telemetry`) on the OTel SDK's
// tracer, calling the fake OpenAI endpoint through @ai-sdk/openai's chat completions model.
let h: LibraryHarness;
let openai: ReturnType<typeof createOpenAI>;
beforeAll(async () => {
  h = await startLibraryHarness('vercel-ai-test');
  openai = createOpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test' });
});
afterAll(async () => {
  await h?.stop();
});

function telemetry() {
  return { isEnabled: true, tracer: h.provider.getTracer('ai'), functionId: 'weather-bot', metadata: { sessionId: 'session-vercel', userId: 'user-vercel' } };
}

describe('Vercel AI SDK', () => {
  it('generateText: a chain span around one model call, with tokens, cached and reasoning tokens, cost, session and user', async () => {
    const traceId = await h.inTrace('generate', () =>
      generateText({ model: openai.chat(MODEL), system: 'You are terse.', prompt: QUESTION, experimental_telemetry: telemetry() }),
    );
    const spans = await h.spans(traceId, 3);
    const run = spanNamed(spans, 'ai.generateText');
    const call = spanNamed(spans, 'ai.generateText.doGenerate');
    // The call's own span is a chain: it sums its steps' usage, which a model span would count twice.
    expect(run).toMatchObject({ type: 'chain', input: QUESTION, output: ANSWER, sessionId: 'session-vercel', userId: 'user-vercel', status: 'unset' });
    expect(call).toMatchObject({
      type: 'llm',
      platform: 'vercel-ai',
      model: MODEL,
      provider: 'openai',
      input: QUESTION,
      output: ANSWER,
      inputTokens: 120,
      outputTokens: 20,
      cachedInputTokens: 64,
      reasoningTokens: 8,
      sessionId: 'session-vercel',
      userId: 'user-vercel',
    });
    expect(call.cost).toBeCloseTo(CALL_COST, 12);
    // The step's provider prompt keeps the system message in the list, where the SDK put it.
    expect(call.inputMessages).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You are terse.' }] },
      { role: 'user', parts: [{ type: 'text', content: QUESTION }] },
    ]);
    // The call's own prompt gives it apart.
    expect(run.systemInstructions).toEqual([{ type: 'text', content: 'You are terse.' }]);
    expect(call.outputMessages).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finishReason: 'stop' }]);
  });

  it('streamText: the time to the first chunk', async () => {
    const traceId = await h.inTrace('stream', async () => {
      const result = streamText({ model: openai.chat(MODEL), prompt: QUESTION, experimental_telemetry: telemetry() });
      expect(await result.text).toBe(ANSWER);
    });
    const spans = await h.spans(traceId, 3);
    const call = spanNamed(spans, 'ai.streamText.doStream');
    expect(call).toMatchObject({ type: 'llm', model: MODEL, output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 8 });
    const sent = Number(call.attributes['ai.response.msToFirstChunk']);
    expect(call.timeToFirstTokenMs).toBeGreaterThan(0);
    expect(call.timeToFirstTokenMs).toBeCloseTo(sent, 0);
    expect(call.timeToFirstTokenMs!).toBeLessThan(call.durationMs);
  });

  it('a tool loop: the tool call asked for, the tool span with its arguments and result, the answer from its result', async () => {
    const traceId = await h.inTrace('tool loop', () =>
      generateText({
        model: openai.chat(MODEL),
        prompt: WEATHER_QUESTION,
        tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async () => TOOL_RESULT }) },
        stopWhen: stepCountIs(3),
        experimental_telemetry: telemetry(),
      }),
    );
    const spans = await h.spans(traceId, 5);
    const [asking, answering] = spans.filter((s) => s.name === 'ai.generateText.doGenerate');
    expect(asking!.outputMessages).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } }], finishReason: 'tool-calls' },
    ]);
    expect(asking!.output).toContain(TOOL_CALL.name);
    const toolSpan = spanNamed(spans, 'ai.toolCall');
    expect(toolSpan).toMatchObject({ type: 'tool', toolName: TOOL_CALL.name, toolCallId: TOOL_CALL.id, toolArguments: TOOL_CALL.arguments, input: TOOL_CALL.arguments });
    expect(JSON.parse(toolSpan.output)).toEqual(TOOL_RESULT);
    expect(answering!.inputMessages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(answering!.output).toBe(WEATHER_ANSWER);
    expect(spanNamed(spans, 'ai.generateText')).toMatchObject({ type: 'chain', input: WEATHER_QUESTION, output: WEATHER_ANSWER, inputTokens: 240, outputTokens: 40 });
  });

  it('embed: an embedding span with its model, input text and tokens', async () => {
    const traceId = await h.inTrace('embed', () => embed({ model: openai.embedding(EMBEDDING_MODEL), value: 'sunny day', experimental_telemetry: telemetry() }));
    const spans = await h.spans(traceId, 3);
    const call = spanNamed(spans, 'ai.embed.doEmbed');
    expect(call).toMatchObject({ type: 'embedding', model: EMBEDDING_MODEL, provider: 'openai', input: 'sunny day', inputTokens: 8 });
    expect(call.cost).toBeCloseTo((8 * 0.02) / 1e6, 12);
  });

  it('a failing call: error status and the provider error message on the model span and the run', async () => {
    const traceId = await h.inTrace('fail', () => generateText({ model: openai.chat(MISSING_MODEL), prompt: QUESTION, maxRetries: 0, experimental_telemetry: telemetry() }));
    const spans = await h.spans(traceId, 3);
    for (const name of ['ai.generateText', 'ai.generateText.doGenerate']) {
      expect(spanNamed(spans, name)).toMatchObject({ status: 'error', statusMessage: expect.stringContaining('does not exist') });
    }
    expect(spanNamed(spans, 'ai.generateText.doGenerate')).toMatchObject({ type: 'llm', model: MISSING_MODEL, input: QUESTION, output: '' });
  });
});
