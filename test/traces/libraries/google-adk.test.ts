import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { z } from 'zod';
import { startFakeGemini, type FakeGemini, type GeminiAnswer, type GeminiRequest } from '../../support/fake-gemini.ts';
import { TOOL_RESULT, WEATHER_ANSWER, WEATHER_QUESTION, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';

// Google's Agent Development Kit for TypeScript on its Gemini model, whose @google/genai
// client takes the fake Gemini endpoint from GOOGLE_GEMINI_BASE_URL. ADK traces through
// the OpenTelemetry API's global tracer (scope gcp.vertex.agent): the harness's provider is
// made the global one before ADK is loaded, as the Node SDK started ahead of the application
// would: ADK takes its tracer when its module loads, from its own copy of the API, whose
// proxy never learns of a provider registered later through another copy.
const GEMINI_MODEL = 'gemini-2.5-flash';
let h: LibraryHarness;
let gemini: FakeGemini;
let adk: typeof import('@google/adk');

/** A function call while the last turn is the user's question, the answer once a function has answered. */
function weather(request: GeminiRequest): GeminiAnswer {
  const last = request.body.contents?.at(-1)?.parts ?? [];
  if (last.some((p) => 'functionResponse' in p)) return { text: WEATHER_ANSWER };
  return { functionCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] };
}

beforeAll(async () => {
  [h, gemini] = await Promise.all([startLibraryHarness('google-adk-test'), startFakeGemini(weather)]);
  process.env['GOOGLE_GEMINI_BASE_URL'] = gemini.baseUrl;
  trace.setGlobalTracerProvider(h.provider);
  adk = await import('@google/adk');
});
afterAll(async () => {
  trace.disable();
  delete process.env['GOOGLE_GEMINI_BASE_URL'];
  await Promise.all([h?.stop(), gemini?.close()]);
});

describe('Google ADK', () => {
  it('a tool loop: the execute_tool span is a tool with its arguments and result, not a model call missing its model and tokens', async () => {
    const getWeather = new adk.FunctionTool({ name: 'get_weather', description: 'The weather in a city', parameters: z.object({ city: z.string() }), execute: async () => TOOL_RESULT });
    const agent = new adk.LlmAgent({ name: 'weather_agent', model: new adk.Gemini({ model: GEMINI_MODEL, apiKey: 'test-key' }), instruction: 'You are terse.', tools: [getWeather] });
    const runner = new adk.InMemoryRunner({ agent, appName: 'weather' });
    const session = await runner.sessionService.createSession({ appName: 'weather', userId: 'user-adk' });
    const traceId = await h.inTrace('adk run', async () => {
      const texts: string[] = [];
      for await (const event of runner.runAsync({ userId: 'user-adk', sessionId: session.id, newMessage: { role: 'user', parts: [{ text: WEATHER_QUESTION }] } })) {
        for (const part of event.content?.parts ?? []) if (part.text) texts.push(part.text);
      }
      expect(texts.join('')).toBe(WEATHER_ANSWER);
    });
    const spans = await h.spans(traceId, 6);
    const [toolSpan] = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    // ADK sets `gcp.vertex.agent.llm_request` / `llm_response` to "{}" on its tool spans too.
    expect([toolSpan!.attributes['gcp.vertex.agent.llm_request'], toolSpan!.attributes['gcp.vertex.agent.llm_response']]).toEqual(['{}', '{}']);
    expect(toolSpan).toMatchObject({ type: 'tool', toolName: 'get_weather', toolArguments: '{"city":"Paris"}', input: '{"city":"Paris"}', model: null, qualityFlags: [] });
    expect(JSON.parse(toolSpan!.output)).toEqual(TOOL_RESULT);
    const calls = spans.filter((s) => s.name === 'call_llm');
    expect(calls.map((s) => s.type)).toEqual(['llm', 'llm']);
    expect(calls[0]!.output).toBe('get_weather({"city":"Paris"})');
    // Output tokens count Gemini's thoughts (8) beside the answer's candidates (20), as it bills them.
    expect(calls[1]).toMatchObject({ model: GEMINI_MODEL, provider: 'google', input: WEATHER_QUESTION, output: WEATHER_ANSWER, inputTokens: 120, outputTokens: 28, cachedInputTokens: 64, reasoningTokens: 8, sessionId: session.id, agentName: 'weather_agent' });
    expect(spans.find((s) => s.name === 'invoke_agent weather_agent')).toMatchObject({ type: 'agent', agentName: 'weather_agent', sessionId: session.id });
  });
});
