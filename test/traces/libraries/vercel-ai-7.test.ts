import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAI } from '@ai-sdk/openai-4';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { generateText, type Telemetry } from 'ai-7';
import { ANSWER, CALL_COST, MODEL, QUESTION, spanNamed, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';

// The Vercel AI SDK 7 (npm alias `ai-7`, beside the v6 of vercel-ai.test.ts), whose spans
// now come from a telemetry integration of @ai-sdk/otel given per call: `LegacyOpenTelemetry`
// writes the `ai.*` attributes of earlier versions, with the usage split into
// `ai.usage.inputTokenDetails.*` / `ai.usage.outputTokenDetails.*`; `OpenTelemetry` writes
// GenAI semconv with those details beside it.
let h: LibraryHarness;
beforeAll(async () => (h = await startLibraryHarness('vercel-ai-7-test')));
afterAll(() => h?.stop());

function ask(integration: Telemetry) {
  return generateText({
    model: createOpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test' }).chat(MODEL),
    prompt: QUESTION,
    telemetry: { functionId: 'capital-bot', integrations: [integration] },
  });
}

describe('Vercel AI SDK 7', () => {
  it('the legacy `ai.*` spans: cached and reasoning tokens from the usage details, and the cost that follows', async () => {
    const traceId = await h.inTrace('legacy', async () => expect((await ask(new LegacyOpenTelemetry({ tracer: h.provider.getTracer('ai') }))).text).toBe(ANSWER));
    const spans = await h.spans(traceId, 3);
    const call = spanNamed(spans, 'ai.generateText.doGenerate');
    // The SDK no longer writes ai.usage.cachedInputTokens / reasoningTokens here: only the details.
    expect(Number(call.attributes['ai.usage.outputTokenDetails.reasoningTokens'])).toBe(8);
    expect(call).toMatchObject({ type: 'llm', platform: 'vercel-ai', model: MODEL, provider: 'openai', input: QUESTION, output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 8 });
    expect(call.cost).toBeCloseTo(CALL_COST, 12);
    expect(spanNamed(spans, 'ai.generateText')).toMatchObject({ type: 'chain', input: QUESTION, output: ANSWER, reasoningTokens: 8 });
  });

  it('the GenAI semconv spans with the usage details asked for (`usage: true`): the reasoning tokens from them', async () => {
    // Without `usage: true` the integration sends no reasoning count at all (semconv has no attribute for it).
    const integration = new OpenTelemetry({ tracer: h.provider.getTracer('ai'), usage: true });
    const traceId = await h.inTrace('semconv', async () => expect((await ask(integration)).text).toBe(ANSWER));
    const spans = await h.spans(traceId, 3);
    const calls = spans.filter((s) => s.type === 'llm');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ model: MODEL, provider: 'openai', input: QUESTION, output: ANSWER, inputTokens: 120, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 8 });
    expect(calls[0]!.attributes['gen_ai.usage.cache_read.input_tokens']).toBeDefined();
    expect(calls[0]!.cost).toBeCloseTo(CALL_COST, 12);
  });
});
