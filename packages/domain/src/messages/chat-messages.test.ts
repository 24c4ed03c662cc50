import { describe, expect, it } from 'vitest';
import { messagesOf, systemPartsOf } from './chat-messages.ts';

const PNG = 'iVBORw0KGgo='; // 8 bytes

describe('messagesOf: each library\'s message list, one model', () => {
  it('reads GenAI messages, with the older tool result key `result`', () => {
    expect(
      messagesOf([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { location: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', result: 'rainy, 57°F' }] },
        { role: 'assistant', parts: [{ type: 'text', content: 'Rainy.' }], finish_reason: 'stop' },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { location: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy, 57°F' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'Rainy.' }], finish_reason: 'stop' },
    ]);
  });

  it('reads OpenAI chat messages: content parts, tool calls, tool results by tool_call_id', () => {
    expect(
      messagesOf([
        { role: 'developer', content: 'Be terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":18}' },
      ]),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be terse.' }] },
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is in this image?' },
          { type: 'blob', modality: 'image', mime_type: 'image/png', size: 8 },
        ],
      },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', id: 'call_1', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '{"temp_c":18}' }] },
    ]);
  });

  it('reads Anthropic messages: images, thinking, tool_use, and tool_result turns as the tool speaking', () => {
    expect(
      messagesOf([
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: 'Describe it' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'A lookup helps.', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'cat' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a cat' }] }] },
      ]),
    ).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'blob', modality: 'image', mime_type: 'image/png', size: 8 },
          { type: 'text', content: 'Describe it' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'A lookup helps.' },
          { type: 'tool_call', name: 'lookup', id: 'toolu_1', arguments: { q: 'cat' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: 'a cat' }] },
    ]);
  });

  it('reads Vercel AI SDK prompts: v5+ (input, tagged output, mediaType) and v4 (args, result, mimeType)', () => {
    expect(
      messagesOf([
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'file', mediaType: 'image/png', data: PNG }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Call the tool.' },
            { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'weather', output: { type: 'json', value: { temp: 18 } } }] },
      ]),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You are helpful.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Weather?' }, { type: 'blob', modality: 'image', mime_type: 'image/png', size: 8 }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'Call the tool.' },
          { type: 'tool_call', name: 'weather', id: 'call_1', arguments: { city: 'Paris' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { temp: 18 } }] },
    ]);
    expect(
      messagesOf([
        { role: 'user', content: [{ type: 'image', image: 'https://example.com/cat.png', mimeType: 'image/png' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', args: { a: 1 } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'f', result: 'ok' }] },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'uri', modality: 'image', mime_type: 'image/png', uri: 'https://example.com/cat.png' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'f', id: 'c', arguments: { a: 1 } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c', response: 'ok' }] },
    ]);
  });

  it('reads Gemini contents, camelCase (JS) and snake_case (Python, Google ADK)', () => {
    expect(
      messagesOf([
        { role: 'user', parts: [{ text: 'Weather in Paris?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] },
        { role: 'model', parts: [{ text: 'Let me think.', thought: true }, { function_call: { id: 'adk-1', name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ function_response: { id: 'adk-1', name: 'get_weather', response: { temp: 18 } } }] },
        { role: 'model', parts: [{ file_data: { mime_type: 'application/pdf', file_uri: 'gs://b/report.pdf' } }] },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }, { type: 'blob', modality: 'image', mime_type: 'image/png', size: 8 }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'Let me think.' },
          { type: 'tool_call', name: 'get_weather', id: 'adk-1', arguments: { city: 'Paris' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'adk-1', response: { temp: 18 } }] },
      { role: 'assistant', parts: [{ type: 'uri', modality: 'document', mime_type: 'application/pdf', uri: 'gs://b/report.pdf' }] },
    ]);
  });

  it("reads LangChain's serialized messages (constructor form, batches) and dict form", () => {
    const lc = (cls: string, kwargs: object) => ({ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', cls], kwargs });
    expect(
      messagesOf([
        [
          lc('SystemMessage', { content: 'Be brief.', additional_kwargs: {}, response_metadata: {} }),
          lc('HumanMessage', { content: 'Search otters', additional_kwargs: {}, response_metadata: {} }),
          lc('AIMessage', { content: '', tool_calls: [{ name: 'search', args: { q: 'otters' }, id: 'call_9', type: 'tool_call' }], invalid_tool_calls: [] }),
          lc('ToolMessage', { content: 'Otters hold hands.', tool_call_id: 'call_9', name: 'search' }),
        ],
      ]),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Search otters' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'search', id: 'call_9', arguments: { q: 'otters' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_9', response: 'Otters hold hands.' }] },
    ]);
    expect(messagesOf([{ type: 'human', data: { content: 'hi' } }, { type: 'ai', content: 'hello' }])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'hello' }] },
    ]);
  });

  it('reads OpenAI Responses items: messages, function calls and their outputs, reasoning summaries', () => {
    expect(
      messagesOf([
        { role: 'user', content: [{ type: 'input_text', text: 'Plan my trip' }, { type: 'input_image', image_url: 'https://x.test/map.png' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Need flights.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'find_flights', arguments: '{"to":"NRT"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '3 flights' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Book the 9:40.', annotations: [] }] },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Plan my trip' }, { type: 'uri', modality: 'image', uri: 'https://x.test/map.png' }] },
      { role: 'assistant', parts: [{ type: 'reasoning', content: 'Need flights.' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'find_flights', id: 'call_1', arguments: { to: 'NRT' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '3 flights' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'Book the 9:40.' }] },
    ]);
  });

  it('is undefined for values that are not message lists', () => {
    expect(messagesOf([])).toBeUndefined();
    expect(messagesOf({ role: 'user' })).toBeUndefined();
    expect(messagesOf([1, 2, { foo: 'bar' }])).toBeUndefined();
    expect(messagesOf(['hi', 'there'])).toBeUndefined();
    expect(messagesOf(['hi', 'there'], 'input')).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'user', parts: [{ type: 'text', content: 'there' }] },
    ]);
  });
});

describe('systemPartsOf', () => {
  it('reads GenAI parts, plain text, Anthropic blocks, Gemini content and system messages', () => {
    expect(systemPartsOf([{ type: 'text', content: 'A' }, { type: 'text', content: 'B' }])).toEqual([
      { type: 'text', content: 'A' },
      { type: 'text', content: 'B' },
    ]);
    expect(systemPartsOf('You are a billing assistant.')).toEqual([{ type: 'text', content: 'You are a billing assistant.' }]);
    expect(systemPartsOf([{ type: 'text', text: 'Cached rules', cache_control: { type: 'ephemeral' } }])).toEqual([{ type: 'text', content: 'Cached rules' }]);
    expect(systemPartsOf({ parts: [{ text: 'Gemini rules' }] })).toEqual([{ type: 'text', content: 'Gemini rules' }]);
    expect(systemPartsOf([{ role: 'system', content: 'As a message' }])).toEqual([{ type: 'text', content: 'As a message' }]);
    expect(systemPartsOf('')).toBeUndefined();
  });
});
