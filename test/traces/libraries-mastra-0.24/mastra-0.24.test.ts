import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { OtelExporter } from '@mastra/otel-exporter';
import { ANSWER, CALL_COST, MODEL, QUESTION, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';

// Mastra 0.24 (its AI tracing, before @mastra/observability) on an AI SDK 5 OpenAI chat
// model pointed at the fake endpoint, exported by @mastra/otel-exporter 0.3's "custom"
// provider (OTLP/HTTP protobuf). That exporter writes a trace's metadata as bare attributes
// of the span, so the session and user arrive as `sessionId` / `userId`.
let h: LibraryHarness;
let mastra: Mastra;
beforeAll(async () => {
  h = await startLibraryHarness('mastra-0.24-test');
  const openai = createOpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test' });
  const exporter = new OtelExporter({
    // One span a batch: the exporter's batch would otherwise wait 5 s, and it has no flush.
    batchSize: 1,
    provider: { custom: { endpoint: `${h.svc.url}/api/v1/traces/otlp/v1/traces`, headers: { 'x-api-key': h.svc.key }, protocol: 'http/protobuf' } },
  });
  mastra = new Mastra({
    logger: false,
    telemetry: { enabled: false },
    agents: { plain: new Agent({ name: 'Plain Agent', instructions: 'You are terse.', model: openai.chat(MODEL) }) },
    observability: { configs: { otel: { serviceName: 'mastra-0.24-test', exporters: [exporter] } } },
  });
});
afterAll(async () => {
  await mastra?.shutdown();
  await h?.stop();
});

describe('Mastra 0.24', () => {
  it('an agent run: the session and user from its bare sessionId / userId attributes; the model call with its tokens', async () => {
    const result = await mastra.getAgent('plain').generate(QUESTION, { tracingOptions: { metadata: { sessionId: 'session-mastra-024', userId: 'user-mastra-024' } } });
    expect(result.text).toBe(ANSWER);
    const spans = await h.spans(result.traceId!, 4);
    const run = spans.find((s) => s.attributes['mastra.span.type'] === 'agent_run');
    expect([run!.attributes['sessionId'], run!.attributes['userId']]).toEqual(['session-mastra-024', 'user-mastra-024']);
    expect(run).toMatchObject({ type: 'agent', agentName: 'Plain Agent', input: QUESTION, output: ANSWER, sessionId: 'session-mastra-024', userId: 'user-mastra-024' });
    // The generation span (`gen_ai.system` "openai.chat") is the one model call.
    const calls = spans.filter((s) => s.type === 'llm');
    expect(calls.map((s) => s.attributes['mastra.span.type'])).toEqual(['model_generation']);
    expect(calls[0]).toMatchObject({ model: MODEL, provider: 'openai', input: QUESTION, output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 8 });
    expect(calls[0]!.cost).toBeCloseTo(CALL_COST, 12);
  });
});
