import { describe, expect, it } from 'vitest';
import { conversationOf } from './bodies.ts';

const user = (content: string) => ({ role: 'user', parts: [{ type: 'text', content }] });
const assistant = (content: string, finish?: string) => ({
  role: 'assistant',
  parts: [{ type: 'text', content }],
  ...(finish === undefined ? {} : { finish_reason: finish }),
});

describe('conversationOf: request bodies (input side)', () => {
  it('reduces an OpenAI chat request to its messages', () => {
    const body = { model: 'gpt-4o', temperature: 0, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Hi' }], stream: false };
    expect(conversationOf(body, 'input')).toEqual({ messages: [{ role: 'system', parts: [{ type: 'text', content: 'Be terse.' }] }, user('Hi')] });
  });

  it('keeps an Anthropic or Vercel `system` and an OpenAI Responses `instructions` apart', () => {
    expect(conversationOf({ model: 'claude', system: [{ type: 'text', text: 'Rules' }], messages: [{ role: 'user', content: 'Hi' }] }, 'input')).toEqual({
      system: [{ type: 'text', content: 'Rules' }],
      messages: [user('Hi')],
    });
    expect(conversationOf({ model: 'gpt-5', instructions: 'Rules', input: 'Hi' }, 'input')).toEqual({
      system: [{ type: 'text', content: 'Rules' }],
      messages: [user('Hi')],
    });
    // Vercel AI SDK `ai.prompt`: a prompt alone, or messages.
    expect(conversationOf({ system: 'Rules', prompt: 'Write a haiku' }, 'input')).toEqual({ system: [{ type: 'text', content: 'Rules' }], messages: [user('Write a haiku')] });
  });

  it('reads a Gemini / Google ADK request: contents and the system instruction in its config', () => {
    const adk = {
      model: 'gemini-2.0-flash',
      config: { system_instruction: 'You answer weather questions.', tools: [] },
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
    };
    expect(conversationOf(adk, 'input')).toEqual({ system: [{ type: 'text', content: 'You answer weather questions.' }], messages: [user('Weather in Paris?')] });
  });

  it('reads completion prompts and LangChain chain inputs', () => {
    expect(conversationOf({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' }, 'input')).toEqual({ messages: [user('Say hi')] });
    expect(conversationOf({ input: 'What is LangChain?' }, 'input')).toEqual({ messages: [user('What is LangChain?')] });
    expect(conversationOf({ inputs: { input: 'nested' }, tags: [], metadata: {} }, 'input')).toEqual({ messages: [user('nested')] });
    expect(conversationOf({ city: 'Paris' }, 'input')).toBeUndefined();
  });
});

describe('conversationOf: response bodies (output side)', () => {
  it('reduces an OpenAI chat completion to its choices', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    };
    expect(conversationOf(body, 'output')).toEqual({ messages: [assistant('Hello!', 'stop')] });
  });

  it('reduces an OpenAI Responses answer, an Anthropic message and a Gemini / ADK response', () => {
    expect(
      conversationOf(
        {
          object: 'response',
          output: [
            { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
            { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
          ],
        },
        'output',
      ),
    ).toEqual({ messages: [{ role: 'assistant', parts: [{ type: 'tool_call', name: 'f', id: 'c1', arguments: {} }] }, assistant('Done.')] });
    expect(conversationOf({ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi!' }], stop_reason: 'end_turn' }, 'output')).toEqual({
      messages: [assistant('Hi!', 'end_turn')],
    });
    expect(conversationOf({ candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP' }] }, 'output')).toEqual({
      messages: [assistant('Sunny.', 'stop')],
    });
    expect(conversationOf({ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, usage_metadata: { prompt_token_count: 5 } }, 'output')).toEqual({
      messages: [assistant('Sunny.')],
    });
  });

  it('reduces LangChain generations and agent outputs, and Vercel / Mastra results', () => {
    const generation = {
      generations: [[{ text: 'Hi there', message: { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessage'], kwargs: { content: 'Hi there' } } }]],
      llmOutput: { tokenUsage: {} },
    };
    expect(conversationOf(generation, 'output')).toEqual({ messages: [assistant('Hi there')] });
    expect(conversationOf({ output: 'The answer is 4.' }, 'output')).toEqual({ messages: [assistant('The answer is 4.')] });
    expect(
      conversationOf(
        { text: '', toolCalls: [{ toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } }], finishReason: 'tool-calls', usage: {} },
        'output',
      ),
    ).toEqual({ messages: [{ role: 'assistant', parts: [{ type: 'tool_call', name: 'weather', id: 'c1', arguments: { city: 'Paris' } }], finish_reason: 'tool-calls' }] });
    expect(conversationOf({ text: 'It is sunny.', object: null, reasoning: 'Checked.' }, 'output')).toEqual({
      messages: [{ role: 'assistant', parts: [{ type: 'reasoning', content: 'Checked.' }, { type: 'text', content: 'It is sunny.' }] }],
    });
    expect(conversationOf({ status: 'shipped' }, 'output')).toBeUndefined();
  });
});
