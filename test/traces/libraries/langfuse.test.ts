import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { propagateAttributes, setLangfuseTracerProvider, startActiveObservation } from '@langfuse/tracing';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import OpenAI from 'openai';
import { ANSWER, CALL_COST_UNCACHED, MODEL, QUESTION, USAGE, TOOL_RESULT, spanNamed, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';
import { otlpExporter } from '../../support/otel.ts';

// The Langfuse JS SDK (`@langfuse/tracing` observations through `@langfuse/otel`'s span
// processor), as a team moving from Langfuse sends it: its processor given the stock OTLP
// exporter pointed here. The application calls the model with the `openai` SDK and records
// the call as a generation, with the usage the answer reported, as Langfuse's docs show.
let h: LibraryHarness;
let provider: BasicTracerProvider;
let client: OpenAI;
beforeAll(async () => {
  h = await startLibraryHarness('langfuse-test');
  const processor = new LangfuseSpanProcessor({ exporter: otlpExporter('proto', h.svc.url, h.svc.key), environment: 'staging', exportMode: 'immediate' });
  provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'langfuse-test' }), spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  client = new OpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(async () => {
  await provider?.shutdown();
  await h?.stop();
});

/** An agent that answers with one model call and looks the weather up with a tool, in a session. */
async function run(): Promise<string> {
  return propagateAttributes({ sessionId: 'lf-session-1', userId: 'lf-user-1', traceName: 'support-request' }, () =>
    startActiveObservation(
      'support-agent',
      async (agent) => {
        agent.update({ input: { messages: [{ role: 'user', content: QUESTION }] } });
        agent.startObservation('get_weather', { input: { city: 'Paris' } }, { asType: 'tool' }).update({ output: TOOL_RESULT }).end();
        const messages = [{ role: 'user' as const, content: QUESTION }];
        const generation = agent.startObservation('llm-call', { model: MODEL, input: messages }, { asType: 'generation' });
        const answer = await client.chat.completions.create({ model: MODEL, messages });
        const usage = answer.usage!;
        generation
          .update({
            output: answer.choices[0]!.message,
            usageDetails: { input: usage.prompt_tokens, output: usage.completion_tokens, total: usage.total_tokens },
          })
          .end();
        agent.update({ output: { messages: [...messages, answer.choices[0]!.message] } });
        return agent.traceId;
      },
      { asType: 'agent' },
    ),
  );
}

describe('Langfuse JS SDK (@langfuse/otel span processor)', () => {
  it('types its observations, reads the model, messages, usage, session, user and environment it sends', async () => {
    const traceId = await run();
    await provider.forceFlush();
    const spans = await h.spans(traceId, 3, () => provider.forceFlush());
    const agent = spanNamed(spans, 'support-agent');
    const tool = spanNamed(spans, 'get_weather');
    const generation = spanNamed(spans, 'llm-call');
    expect(agent).toMatchObject({ type: 'agent', platform: 'langfuse', agentName: 'support-agent', input: QUESTION, output: ANSWER, sessionId: 'lf-session-1', userId: 'lf-user-1', environment: 'staging' });
    expect(tool).toMatchObject({ type: 'tool', toolName: 'get_weather', toolArguments: '{"city":"Paris"}', output: JSON.stringify(TOOL_RESULT) });
    expect(generation).toMatchObject({
      type: 'llm',
      model: MODEL,
      provider: 'openai',
      input: QUESTION,
      output: ANSWER,
      inputTokens: USAGE.prompt_tokens,
      outputTokens: USAGE.completion_tokens,
      totalTokens: USAGE.total_tokens,
      sessionId: 'lf-session-1',
    });
    expect(generation.cost).toBeCloseTo(CALL_COST_UNCACHED, 12);
    expect(generation.outputMessages).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]);
    // Its raw attributes stay as sent.
    expect(JSON.parse(generation.attributes['langfuse.observation.usage_details']!)).toEqual({ input: 120, output: 20, total: 140 });
  });
});
