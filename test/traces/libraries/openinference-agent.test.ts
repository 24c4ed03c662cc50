import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { traceAgent } from '@arizeai/openinference-core';
import { ANSWER, MODEL, QUESTION, spanNamed, startLibraryHarness, type LibraryHarness } from '../../support/libraries.ts';

// An agent function wrapped by openinference-core's `traceAgent`: an AGENT span named for the
// agent, without `agent.name`, its input and output the function's argument and result.
let h: LibraryHarness;
beforeAll(async () => {
  h = await startLibraryHarness('openinference-agent-test');
});
afterAll(async () => {
  await h?.stop();
});

describe('OpenInference traceAgent', () => {
  it('an AGENT span without agent.name is named by its span', async () => {
    const client = new OpenAI({ baseURL: h.fake.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
    const agent = traceAgent(
      async (question: string) => (await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }] })).choices[0]!.message.content,
      { name: 'weather-agent', tracer: h.provider.getTracer('agent') },
    );
    const traceId = await h.inTrace('request', async () => expect(await agent(QUESTION)).toBe(ANSWER));
    const span = spanNamed(await h.spans(traceId, 2), 'weather-agent');
    expect(span.attributes['agent.name']).toBeUndefined();
    expect(span).toMatchObject({ type: 'agent', platform: 'openinference', agentName: 'weather-agent', input: QUESTION, output: ANSWER });
  });
});
