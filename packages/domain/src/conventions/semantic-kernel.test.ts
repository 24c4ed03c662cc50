import { describe, expect, it } from 'vitest';
import { makeSpan, nsAfterStart, rowOf } from '../test-fixtures.ts';

// Shapes as Semantic Kernel .NET 1.x writes them (ModelDiagnostics: one event per message,
// the message as JSON in `gen_ai.event.content`, plugin functions named `Plugin-function`).
const scope = { name: 'Microsoft.SemanticKernel.Diagnostics', version: '1.60.0' };

function event(name: string, content: unknown, ms: number) {
  return { name, timeUnixNano: nsAfterStart(ms), attributes: { 'gen_ai.event.content': JSON.stringify(content) } };
}

describe('Semantic Kernel', () => {
  it('chat.completions: messages from its events (tool call and tool result included), tokens, provider', () => {
    const row = rowOf(
      makeSpan({
        name: 'chat.completions gpt-4o-mini',
        kind: 3,
        attributes: {
          'gen_ai.operation.name': 'chat.completions',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.id': 'chatcmpl-2',
          'gen_ai.response.finish_reason': '["Stop"]',
          'gen_ai.usage.input_tokens': 120,
          'gen_ai.usage.output_tokens': 20,
        },
        events: [
          event('gen_ai.system.message', { role: 'system', content: 'You are a weather assistant.' }, 1),
          event('gen_ai.user.message', { role: 'user', content: 'What is the weather in Paris?' }, 1),
          event('gen_ai.assistant.message', { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', function: { arguments: { city: 'Paris' }, name: 'WeatherPlugin-get_weather' }, type: 'function' }] }, 1),
          event('gen_ai.tool.message', { role: 'tool', content: 'sunny, 21°C' }, 1),
          event('gen_ai.choice', { index: 0, message: { role: 'assistant', content: 'It is sunny in Paris, 21°C.' }, tool_calls: [], finish_reason: 'Stop' }, 900),
        ],
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'semantic-kernel',
      model: 'gpt-4o-mini',
      provider: 'openai',
      input_tokens: 120,
      output_tokens: 20,
      output: 'It is sunny in Paris, 21°C.',
      status: 'unset',
    });
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You are a weather assistant.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'WeatherPlugin-get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', response: 'sunny, 21°C' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'It is sunny in Paris, 21°C.' }], finish_reason: 'Stop' }]);
  });

  it("its first telemetry: token counts as gen_ai.response.prompt_tokens / completion_tokens, -1 when the connector did not know", () => {
    const row = rowOf(
      makeSpan({
        name: 'chat.completions gpt-4o',
        attributes: {
          'gen_ai.operation.name': 'chat.completions',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.prompt_tokens': 95,
          'gen_ai.response.completion_tokens': -1,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ platform: 'semantic-kernel', input_tokens: 95, output_tokens: 0 });
  });
});
