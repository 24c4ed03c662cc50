import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { Agent, tool } from '@strands-agents/sdk';
import { OpenAIModel } from '@strands-agents/sdk/models/openai';
import { z } from 'zod';
import type { Page, SpanDetail, TraceListItem } from '../../support/api-types.ts';
import { ANSWER, CALL_COST, MODEL, QUESTION, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, WEATHER_QUESTION, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { eventually, jsonCall } from '../../support/service.ts';

// Strands Agents' TypeScript SDK on its OpenAI model provider (Chat Completions) pointed at
// the fake endpoint, with its default conventions (no OTEL_SEMCONV_STABILITY_OPT_IN): the
// messages as span events whose content is the JSON of content blocks, and the SDK's own
// name in `gen_ai.system`. It traces through the OpenTelemetry API's global tracer: the
// harness's provider is made the global one, as the Node SDK would.
let h: LibraryHarness;
beforeAll(async () => {
  h = await startLibraryHarness('strands-test');
  trace.setGlobalTracerProvider(h.provider);
});
afterAll(async () => {
  trace.disable();
  await h?.stop();
});

function model() {
  return new OpenAIModel({ api: 'chat', modelId: MODEL, apiKey: 'sk-test', clientConfig: { baseURL: h.fake.baseUrl } });
}

/** Runs the agent (whose span is the trace's root), then its listed trace and spans. */
async function run(agent: Agent, question: string, count: number): Promise<{ answer: string; item: TraceListItem; spans: SpanDetail[] }> {
  const answer = String(await agent.invoke(question));
  await h.provider.forceFlush();
  const item = await eventually(
    async () => (await jsonCall<Page<TraceListItem>>(h.svc, '/api/v1/traces?limit=10')).body.data.find((t) => t.name === `invoke_agent ${agent.name}`),
    20_000,
    `the ${agent.name} trace in the list`,
  );
  return { answer, item, spans: await h.spans(item.traceId, count) };
}

function ofOperation(spans: SpanDetail[], operation: string): SpanDetail[] {
  return spans.filter((s) => s.attributes['gen_ai.operation.name'] === operation);
}

describe('Strands Agents, default conventions', () => {
  it('a question answered: the trace list shows the question and the answer as text; the model call reads its content blocks, its provider from the model', async () => {
    const { answer, item, spans } = await run(new Agent({ name: 'Capital Agent', model: model(), printer: false }), QUESTION, 3);
    expect(answer).toBe(ANSWER);
    expect([item.input, item.output]).toEqual([QUESTION, ANSWER]);
    const [run_] = ofOperation(spans, 'invoke_agent');
    expect(run_).toMatchObject({ type: 'agent', agentName: 'Capital Agent', input: QUESTION, output: ANSWER, provider: 'openai' });
    const [call] = ofOperation(spans, 'chat');
    // What the SDK sent: its own name as the system, the question as content-block JSON.
    expect(call!.attributes['gen_ai.system']).toBe('strands-agents');
    expect(call!.events.find((e) => e.name === 'gen_ai.user.message')!.attributes['content']).toBe(JSON.stringify([{ text: QUESTION }]));
    expect(call).toMatchObject({ type: 'llm', model: MODEL, provider: 'openai', input: QUESTION, output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64 });
    expect(call!.outputMessages).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finishReason: 'endTurn' }]);
    expect(call!.cost).toBeCloseTo(CALL_COST, 12);
  });

  it('a tool loop: the tool span with its arguments and result, the model call asking for it, the answer', async () => {
    const getWeather = tool({ name: TOOL_CALL.name, description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), callback: () => TOOL_RESULT });
    const { answer, item, spans } = await run(new Agent({ name: 'Weather Agent', model: model(), tools: [getWeather], printer: false }), WEATHER_QUESTION, 6);
    expect(answer).toBe(WEATHER_ANSWER);
    expect([item.input, item.output]).toEqual([WEATHER_QUESTION, WEATHER_ANSWER]);
    const [asking, answering] = ofOperation(spans, 'chat');
    // The SDK sends the call asked for as `[{"type":"toolUse",…}]` in gen_ai.choice.
    expect(asking!.outputMessages).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: TOOL_CALL.id, name: TOOL_CALL.name, arguments: { city: 'Paris' } }], finishReason: 'toolUse' },
    ]);
    expect(answering!.inputMessages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(answering!.output).toBe(WEATHER_ANSWER);
    // Its arguments come as a gen_ai.tool.message event, its result as a `json` block.
    const [toolSpan] = ofOperation(spans, 'execute_tool');
    expect(toolSpan).toMatchObject({ type: 'tool', toolName: TOOL_CALL.name, toolCallId: TOOL_CALL.id, toolArguments: TOOL_CALL.arguments, input: TOOL_CALL.arguments, provider: null });
    expect(JSON.parse(toolSpan!.output)).toEqual(TOOL_RESULT);
  });
});
