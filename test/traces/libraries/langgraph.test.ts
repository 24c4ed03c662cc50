import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { z } from 'zod';
import type { Page, TraceListItem } from '../../support/api-types.ts';
import { CALL_COST, MODEL, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, WEATHER_QUESTION, spanNamed, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { eventually, jsonCall } from '../../support/service.ts';

// A LangGraph agent (its prebuilt ReAct agent over ChatOpenAI and one tool) traced by
// OpenInference's LangChain instrumentation, applied with its manual API. The graph runs
// without a span of the application's around it, so its own span is the trace's root: that
// span's input and output are the graph's state, LangChain-serialized messages.
let h: LibraryHarness;
beforeAll(async () => {
  h = await startLibraryHarness('langgraph-test');
  new LangChainInstrumentation({ tracerProvider: h.provider }).manuallyInstrument(CallbackManagerModule);
});
afterAll(async () => {
  await h?.stop();
});

const getWeather = tool(async () => JSON.stringify(TOOL_RESULT), {
  name: 'get_weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string() }),
});

describe('LangGraph with OpenInference', () => {
  it('the trace list shows the question and the answer as text; the root keeps the serialized state in its attributes', async () => {
    const model = new ChatOpenAI({ model: MODEL, apiKey: 'sk-test', maxRetries: 0, configuration: { baseURL: h.fake.baseUrl } });
    const agent = createReactAgent({ llm: model, tools: [getWeather] });
    const state = await agent.invoke({ messages: [new HumanMessage(WEATHER_QUESTION)] });
    expect(state.messages.at(-1)?.content).toBe(WEATHER_ANSWER);
    await h.provider.forceFlush();

    const listed = await eventually(
      async () => (await jsonCall<Page<TraceListItem>>(h.svc, '/api/v1/traces?limit=10')).body.data.find((t) => t.name === 'LangGraph'),
      20_000,
      'the LangGraph trace in the list',
    );
    expect([listed.input, listed.output]).toEqual([WEATHER_QUESTION, WEATHER_ANSWER]);

    const spans = await h.spans(listed.traceId, 2);
    const root = spanNamed(spans, 'LangGraph');
    expect(root).toMatchObject({ type: 'chain', input: WEATHER_QUESTION, output: WEATHER_ANSWER });
    expect(root.attributes['input.value']).toContain('"lc":1');
    expect(root.outputMessages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('its model calls: model, provider, tokens with cached and reasoning, cost; a step’s serialized AIMessage result as its text', async () => {
    const model = new ChatOpenAI({ model: MODEL, apiKey: 'sk-test', maxRetries: 0, configuration: { baseURL: h.fake.baseUrl } });
    const traceId = await h.inTrace('graph', () => createReactAgent({ llm: model, tools: [getWeather] }).invoke({ messages: [new HumanMessage(WEATHER_QUESTION)] }));
    const spans = await h.spans(traceId, 15);
    const calls = spans.filter((s) => s.name === 'ChatOpenAI');
    expect(calls.map((c) => [c.type, c.model, c.provider, c.inputTokens, c.outputTokens, c.cachedInputTokens, c.reasoningTokens])).toEqual([
      ['llm', MODEL, 'openai', 120, 20, 64, 8],
      ['llm', MODEL, 'openai', 120, 20, 64, 8],
    ]);
    expect(calls[0]!.cost).toBeCloseTo(CALL_COST, 12);
    expect(calls.map((c) => c.output)).toEqual([`${TOOL_CALL.name}(${TOOL_CALL.arguments})`, WEATHER_ANSWER]);
    const steps = spans.filter((s) => s.name === 'RunnableSequence');
    expect(steps.map((s) => s.output)).toEqual([`${TOOL_CALL.name}(${TOOL_CALL.arguments})`, WEATHER_ANSWER]);
  });
});
