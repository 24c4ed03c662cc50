import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

// Shapes as Genkit JS 1.x writes them (@genkit-ai/core tracing: genkit:* attributes; the
// model action's input a GenerateRequest, its output a GenerateResponse).
const scope = { name: 'genkit-tracer', version: 'v1' };
const MODEL = 'googleai/gemini-2.5-flash';

describe('Genkit', () => {
  it('a model action: the request and response reduced to messages (tool request and response parts), usage with cached and thinking tokens', () => {
    const request = {
      messages: [
        { role: 'system', content: [{ text: 'You are a weather assistant.' }] },
        { role: 'user', content: [{ text: 'What is the weather in Paris?' }, { media: { url: 'https://example.com/paris.png', contentType: 'image/png' } }] },
        { role: 'model', content: [{ toolRequest: { ref: '0', name: 'getWeather', input: { city: 'Paris' } } }] },
        { role: 'tool', content: [{ toolResponse: { ref: '0', name: 'getWeather', output: 'sunny, 21°C' } }] },
      ],
      config: { temperature: 0.2 },
      tools: [{ name: 'getWeather', description: 'The weather in a city', inputSchema: { type: 'object' }, outputSchema: { type: 'string' } }],
      output: {},
    };
    const response = {
      message: { role: 'model', content: [{ text: 'It is sunny in Paris, 21°C.' }] },
      finishReason: 'stop',
      usage: { inputTokens: 180, outputTokens: 12, totalTokens: 212, cachedContentTokens: 64, thoughtsTokens: 20, inputCharacters: 120, outputCharacters: 27 },
      latencyMs: 812.5,
    };
    const row = rowOf(
      makeSpan({
        name: MODEL,
        attributes: {
          'genkit:type': 'action',
          'genkit:metadata:subtype': 'model',
          'genkit:name': MODEL,
          'genkit:path': `/{weatherFlow,t:flow}/{generate,t:util}/{${MODEL},t:action,s:model}`,
          'genkit:input': JSON.stringify(request),
          'genkit:output': JSON.stringify(response),
          'genkit:state': 'success',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'genkit',
      model: 'gemini-2.5-flash',
      provider: 'google',
      input: 'What is the weather in Paris?',
      output: 'It is sunny in Paris, 21°C.',
      input_tokens: 180,
      // Gemini's output count leaves the thinking out (180 + 12 + 20 = 212): output tokens include it here.
      output_tokens: 32,
      cached_input_tokens: 64,
      reasoning_tokens: 20,
    });
    expect(JSON.parse(row.input_messages).slice(1)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }, { type: 'uri', modality: 'image', mime_type: 'image/png', uri: 'https://example.com/paris.png' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: '0', name: 'getWeather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: '0', response: 'sunny, 21°C' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'It is sunny in Paris, 21°C.' }], finish_reason: 'stop' }]);
  });

  it('a tool action: name, arguments and result', () => {
    const row = rowOf(
      makeSpan({
        name: 'getWeather',
        attributes: { 'genkit:type': 'action', 'genkit:metadata:subtype': 'tool', 'genkit:name': 'getWeather', 'genkit:input': '{"city":"Paris"}', 'genkit:output': '"sunny, 21°C"', 'genkit:state': 'success' },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'tool', tool_name: 'getWeather', tool_arguments: '{"city":"Paris"}', input: '{"city":"Paris"}', output: 'sunny, 21°C' });
  });

  it('a flow: an agent run with its input, output and session; a failed action is an error', () => {
    const flow = rowOf(
      makeSpan({
        name: 'weatherFlow',
        attributes: {
          'genkit:type': 'action',
          'genkit:metadata:subtype': 'flow',
          'genkit:name': 'weatherFlow',
          'genkit:isRoot': true,
          'genkit:input': '"What is the weather in Paris?"',
          'genkit:output': '"It is sunny in Paris, 21°C."',
          'genkit:sessionId': 'session-7',
          'genkit:state': 'success',
        },
      }),
      { scope },
    );
    expect(flow).toMatchObject({ span_type: 'agent', agent_name: 'weatherFlow', input: 'What is the weather in Paris?', output: 'It is sunny in Paris, 21°C.', session_id: 'session-7', status: 'unset' });
    const agent = rowOf(
      makeSpan({
        name: 'weatherAgent',
        attributes: {
          'genkit:type': 'action',
          'genkit:metadata:subtype': 'agent',
          'genkit:name': 'weatherAgent',
          'genkit:metadata:agent:sessionId': 'agent-session-3',
          'genkit:input': '"Weather in Paris?"',
        },
      }),
      { scope },
    );
    expect(agent).toMatchObject({ span_type: 'agent', agent_name: 'weatherAgent', session_id: 'agent-session-3', input: 'Weather in Paris?' });
    const failed = rowOf(makeSpan({ name: 'getWeather', attributes: { 'genkit:type': 'action', 'genkit:metadata:subtype': 'tool', 'genkit:name': 'getWeather', 'genkit:state': 'error' } }), { scope });
    expect(failed.status).toBe('error');
  });
});
