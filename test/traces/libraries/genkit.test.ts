import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { genkit } from 'genkit';
import { disableGenkitOTelInitialization } from 'genkit/tracing';
import { openAI } from '@genkit-ai/compat-oai/openai';
import type { Page, TraceListItem } from '../../support/api-types.ts';
import { ANSWER, CALL_COST_UNCACHED, MODEL, QUESTION, spanNamed, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { eventually, jsonCall } from '../../support/service.ts';

// Genkit with its OpenAI plugin (`@genkit-ai/compat-oai`), pointed at the fake endpoint
// through the `openai` SDK's OPENAI_BASE_URL. Genkit traces through the OpenTelemetry API's
// global tracer; its own SDK start-up is turned off and the application's tracer provider,
// exporting with the stock OTLP exporter, is the global one (as with the Node SDK).
let h: LibraryHarness;
let ai: ReturnType<typeof genkit>;
beforeAll(async () => {
  h = await startLibraryHarness('genkit-test');
  disableGenkitOTelInitialization();
  trace.setGlobalTracerProvider(h.provider);
  process.env['OPENAI_BASE_URL'] = h.fake.baseUrl;
  ai = genkit({ plugins: [openAI({ apiKey: 'sk-test' })] });
});
afterAll(async () => {
  trace.disable();
  delete process.env['OPENAI_BASE_URL'];
  await h?.stop();
});

/** The listed trace named `name`, once it is there. */
function listed(name: string): Promise<TraceListItem> {
  return eventually(
    async () => (await jsonCall<Page<TraceListItem>>(h.svc, '/api/v1/traces?limit=10')).body.data.find((t) => t.name === name),
    20_000,
    `the ${name} trace in the list`,
  );
}

describe('Genkit', () => {
  it('a generate call at the root: the trace list shows the question and the answer, not the request and response bodies', async () => {
    const response = await ai.generate({ model: openAI.model(MODEL), prompt: QUESTION });
    expect(response.text).toBe(ANSWER);
    await h.provider.forceFlush();
    const item = await listed('generate');
    expect([item.input, item.output]).toEqual([QUESTION, ANSWER]);
    const spans = await h.spans(item.traceId, 2);
    const root = spanNamed(spans, 'generate');
    expect(root.attributes['genkit:input']).toContain('"messages"');
    const call = spans.find((s) => s.type === 'llm')!;
    expect(call).toMatchObject({ platform: 'genkit', model: MODEL, input: QUESTION, output: ANSWER });
    // The plugin passes on the call's token counts, not their cached and reasoning parts.
    expect(call).toMatchObject({ provider: 'openai', inputTokens: 120, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(call.cost).toBeCloseTo(CALL_COST_UNCACHED, 12);
  });
});
