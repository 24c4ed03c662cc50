import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './model.ts';
import { readableInput, readableOutput } from './readable.ts';

const text = (role: ChatMessage['role'], content: string): ChatMessage => ({ role, parts: [{ type: 'text', content }] });

describe('readable texts', () => {
  it('input is the last user turn, not the system prompt nor earlier turns', () => {
    expect(readableInput([text('system', 'You are a billing assistant.'), text('user', 'Hi'), text('assistant', 'Hello!'), text('user', 'Why is my invoice higher?')])).toBe(
      'Why is my invoice higher?',
    );
  });

  it('input after tools is still the user turn; a tool result when no user spoke', () => {
    const afterTools: ChatMessage[] = [
      text('user', 'Weather in Paris?'),
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { temp: 18 } }] },
    ];
    expect(readableInput(afterTools)).toBe('Weather in Paris?');
    expect(readableInput(afterTools.slice(1))).toBe('{"temp":18}');
    expect(readableInput([text('system', 'Only a system prompt')])).toBe('Only a system prompt');
    expect(readableInput([])).toBe('');
  });

  it('input with media only shows placeholders, never bytes', () => {
    expect(readableInput([{ role: 'user', parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png', size: 9000 }] }])).toBe('[image image/png]');
    expect(readableInput([{ role: 'user', parts: [{ type: 'uri', modality: 'image', uri: 'https://x.test/a.png' }, { type: 'text', content: 'What is this?' }] }])).toBe(
      'What is this?',
    );
  });

  it("output is the assistant's text, else its tool calls as calls, else its reasoning", () => {
    expect(readableOutput([text('assistant', 'Rainy, 14°C.')])).toBe('Rainy, 14°C.');
    expect(
      readableOutput([
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } },
            { type: 'tool_call', id: 'c2', name: 'get_time', arguments: '{"tz":"CET"}' },
            { type: 'tool_call', name: 'ping' },
          ],
        },
      ]),
    ).toBe('get_weather({"city":"Paris"})\nget_time({"tz":"CET"})\nping()');
    expect(readableOutput([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'Thinking…' }] }])).toBe('Thinking…');
    expect(readableOutput([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'Thinking…' }, { type: 'text', content: 'Answer' }] }])).toBe('Answer');
    expect(readableOutput([])).toBe('');
  });

  it('output of a whole agent conversation is its final answer', () => {
    expect(
      readableOutput([
        { role: 'assistant', parts: [{ type: 'tool_call', name: 'search' }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', response: 'found' }] },
        text('assistant', 'Here is what I found.'),
      ]),
    ).toBe('Here is what I found.');
  });
});
