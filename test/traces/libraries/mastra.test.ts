import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { z } from 'zod';
import type { SpanDetail } from '../../support/api-types.ts';
import { parseExposition, sampleValue } from '../../support/prometheus.ts';
import { eventually } from '../../support/service.ts';
import { ANSWER, CALL_COST, MISSING_MODEL, MODEL, QUESTION, TOOL_CALL, TOOL_RESULT, WEATHER_ANSWER, WEATHER_QUESTION, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';

// Mastra 1.x agents on an AI SDK OpenAI chat model pointed at the fake endpoint, traced by
// Mastra's own observability and exported by @mastra/otel-exporter (its "custom" provider:
// OTLP/HTTP protobuf with the key as a header), as its documentation configures it.
let h: LibraryHarness;
let mastra: Mastra;
let observability: Observability;
beforeAll(async () => {
  h = await startLibraryHarness('mastra-test');
  const openai = createOpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test' });
  const getWeather = createTool({
    id: 'get_weather',
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async () => TOOL_RESULT,
  });
  const exporter = new OtelExporter({
    // Its logs go to the same base with /v1/logs: the service's logs endpoint.
    provider: { custom: { endpoint: `${h.svc.url}/api/v1/traces/otlp/v1/traces`, headers: { 'x-api-key': h.svc.key }, protocol: 'http/protobuf' } },
  });
  mastra = new Mastra({
    logger: false,
    agents: {
      plain: new Agent({ id: 'plain', name: 'Plain Agent', instructions: 'You are terse.', model: openai.chat(MODEL) }),
      broken: new Agent({ id: 'broken', name: 'Broken Agent', instructions: 'You are terse.', model: openai.chat(MISSING_MODEL), maxRetries: 0 }),
      weather: new Agent({ id: 'weather', name: 'Weather Agent', instructions: 'You are terse.', model: openai.chat(MODEL), tools: { get_weather: getWeather } }),
    },
    observability: (observability = new Observability({ configs: { otel: { serviceName: 'mastra-test', exporters: [exporter] } } })),
  });
});
afterAll(async () => {
  await mastra?.shutdown();
  await h?.stop();
});

/** The trace's spans, Mastra's exporter flushed as they are awaited (its batch would wait 5 s). */
function spansOf(traceId: string | undefined, count: number): Promise<SpanDetail[]> {
  return h.spans(traceId!, count, () => observability.flush());
}

function ofType(spans: SpanDetail[], mastraType: string): SpanDetail[] {
  return spans.filter((s) => s.attributes['mastra.span.type'] === mastraType);
}

describe('Mastra', () => {
  it('an agent run: the agent span with its input, answer, instructions, session and user; the model inference span with tokens, cost and first-token time', async () => {
    const result = await mastra.getAgent('plain').generate(QUESTION, { tracingOptions: { metadata: { sessionId: 'session-mastra', userId: 'user-mastra' } } });
    expect(result.text).toBe(ANSWER);
    const spans = await spansOf(result.traceId, 5);
    const [run] = ofType(spans, 'agent_run');
    expect(run).toMatchObject({ type: 'agent', platform: 'mastra', agentName: 'Plain Agent', input: QUESTION, output: ANSWER, sessionId: 'session-mastra', userId: 'user-mastra', status: 'ok' });
    expect(run!.systemInstructions).toEqual([{ type: 'text', content: 'You are terse.' }]);
    // The call itself: the only model span, so a trace counts one call and its tokens once.
    const models = spans.filter((s) => s.type === 'llm');
    expect(models.map((s) => s.attributes['mastra.span.type'])).toEqual(['model_inference']);
    const [call] = models;
    expect(call).toMatchObject({ model: MODEL, provider: 'openai', output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 8, sessionId: 'session-mastra', userId: 'user-mastra' });
    expect(call!.cost).toBeCloseTo(CALL_COST, 12);
    expect(call!.timeToFirstTokenMs).toBeGreaterThan(0);
    expect(call!.timeToFirstTokenMs!).toBeLessThanOrEqual(call!.durationMs);
    // The step before it holds the prompt the model was sent (the inference span has none).
    const [step] = ofType(spans, 'model_step');
    expect(step).toMatchObject({ type: 'chain', input: QUESTION, output: ANSWER });
  });

  it('a streamed run: the first-token time from the completion start', async () => {
    const stream = await mastra.getAgent('plain').stream(QUESTION);
    expect(await stream.text).toBe(ANSWER);
    const spans = await spansOf(stream.traceId, 5);
    const [call] = ofType(spans, 'model_inference');
    const sentStart = Date.parse(String(call!.attributes['mastra.completion_start_time']));
    expect(call!.timeToFirstTokenMs).toBe(sentStart - Date.parse(call!.startTime));
  });

  it('a tool loop: the step asking for the tool, the tool span with its arguments and result, the answer', async () => {
    const result = await mastra.getAgent('weather').generate(WEATHER_QUESTION);
    expect(result.text).toBe(WEATHER_ANSWER);
    const spans = await spansOf(result.traceId, 10);
    const [asking, answering] = ofType(spans, 'model_step');
    expect(asking!.output).toBe(`${TOOL_CALL.name}(${TOOL_CALL.arguments})`);
    expect(answering!.output).toBe(WEATHER_ANSWER);
    const [toolSpan] = ofType(spans, 'tool_call');
    expect(toolSpan).toMatchObject({ type: 'tool', toolName: TOOL_CALL.name, toolArguments: TOOL_CALL.arguments, input: TOOL_CALL.arguments });
    expect(JSON.parse(toolSpan!.output)).toEqual(TOOL_RESULT);
    // Mastra's inference span for the step that asked for the tool sends an empty text, not the tool call.
    expect(ofType(spans, 'model_inference')[0]!.outputMessages).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: '' }] }]);
    expect(ofType(spans, 'agent_run')[0]).toMatchObject({ input: WEATHER_QUESTION, output: WEATHER_ANSWER });
  });

  it('a refused call: the run in error with the provider message (the trace id given to Mastra, since the call throws)', async () => {
    const traceId = randomBytes(16).toString('hex');
    await expect(mastra.getAgent('broken').generate(QUESTION, { tracingOptions: { traceId } })).rejects.toThrow(/does not exist/);
    const spans = await spansOf(traceId, 4);
    expect(ofType(spans, 'agent_run')[0]).toMatchObject({ type: 'agent', input: QUESTION, status: 'error', statusMessage: expect.stringContaining('does not exist') });
    // Mastra marks the inference span OK with finish reason `error`: read as the error it is.
    expect(ofType(spans, 'model_inference')[0]).toMatchObject({ type: 'llm', model: MISSING_MODEL, status: 'error' });
    // Mastra's log records are its logger's (a storage warning at start, then "Upstream LLM API
    // error" with this trace), not GenAI events: the logs endpoint takes the exports and
    // refuses those records one by one (partial success), so nothing joins a span.
    const logs = await eventually(
      async () => {
        await observability.flush();
        const samples = parseExposition(await (await fetch(`${h.svc.url}/metrics`)).text());
        const counts = { rejected: sampleValue(samples, 'aos_ingest_rejected_items_total', { signal: 'logs' }) ?? 0, accepted: sampleValue(samples, 'aos_ingest_accepted_items_total', { signal: 'logs' }) ?? 0 };
        return counts.rejected >= 2 ? counts : undefined;
      },
      20_000,
      "Mastra's log records at the logs endpoint",
    );
    expect(logs.accepted).toBe(0);
    const [run] = ofType(await spansOf(traceId, 4), 'agent_run');
    expect([run!.output, run!.outputMessages]).toEqual(['', []]);
  });
});
