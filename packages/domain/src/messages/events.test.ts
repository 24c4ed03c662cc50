import { describe, expect, it } from 'vitest';
import { conversationFromEvents } from './events.ts';

describe('conversationFromEvents', () => {
  it('reads the per-message events as the OpenAI instrumentations emit them (log record bodies)', () => {
    const conversation = conversationFromEvents([
      { name: 'gen_ai.system.message', attributes: { 'gen_ai.system': 'openai' }, body: { content: 'Be brief.' } },
      { name: 'gen_ai.user.message', attributes: { 'gen_ai.system': 'openai' }, body: { content: 'Weather in Paris?' } },
      {
        name: 'gen_ai.assistant.message',
        attributes: { 'gen_ai.system': 'openai' },
        body: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      },
      { name: 'gen_ai.tool.message', attributes: { 'gen_ai.system': 'openai' }, body: { content: 'rainy', id: 'call_1' } },
      { name: 'gen_ai.choice', attributes: { 'gen_ai.system': 'openai' }, body: { index: 0, finish_reason: 'stop', message: { content: 'Rainy.' } } },
    ]);
    expect(conversation).toEqual({
      system: undefined,
      input: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', id: 'call_1', arguments: { city: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy' }] },
      ],
      output: [{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy.' }], finish_reason: 'stop' }],
    });
  });

  it('reads span events: content as attributes or as gen_ai.event.content JSON (Azure AI Inference)', () => {
    const conversation = conversationFromEvents([
      { name: 'gen_ai.user.message', attributes: { content: 'Hello' } },
      { name: 'gen_ai.choice', attributes: { 'gen_ai.event.content': '{"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop","index":0}' } },
    ]);
    expect(conversation.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Hello' }] }]);
    expect(conversation.output).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Hi!' }], finish_reason: 'stop' }]);
  });

  it('reads the inference details event, structured as the conventions require', () => {
    const conversation = conversationFromEvents([
      {
        name: 'gen_ai.client.inference.operation.details',
        attributes: {
          'gen_ai.system_instructions': [{ type: 'text', content: 'Rules' }],
          'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
          'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'stop' }],
        },
      },
    ]);
    expect(conversation).toEqual({
      system: [{ type: 'text', content: 'Rules' }],
      input: [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
      output: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'stop' }],
    });
  });

  it('falls back to the old content events', () => {
    const conversation = conversationFromEvents([
      { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'Say hi' } },
      { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': 'hi' } },
    ]);
    expect(conversation.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Say hi' }] }]);
    expect(conversation.output).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'hi' }] }]);
  });
});
