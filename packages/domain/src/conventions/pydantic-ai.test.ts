import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const scope = { name: 'pydantic-ai', version: '1.0.0' };

describe('Pydantic AI', () => {
  it('agent run: the conversation split at the answer, the final result as the output', () => {
    const row = rowOf(
      makeSpan({
        name: 'invoke_agent support_agent',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'support_agent',
          agent_name: 'support_agent',
          'logfire.msg': 'support_agent run',
          model_name: 'gpt-4o',
          'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be concise.' }]),
          'pydantic_ai.all_messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'What is 15 * 7?' }] },
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'multiply', arguments: { a: 15, b: 7 } }] },
            { role: 'user', parts: [{ type: 'tool_call_response', id: 'call_1', name: 'multiply', result: 105 }] },
            { role: 'assistant', parts: [{ type: 'text', content: '15 * 7 = 105' }], finish_reason: 'stop' },
          ]),
          final_result: '15 * 7 = 105',
          'gen_ai.usage.input_tokens': 120,
          'gen_ai.usage.output_tokens': 30,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'agent', platform: 'pydantic-ai', agent_name: 'support_agent', input: 'What is 15 * 7?', output: '15 * 7 = 105' });
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is 15 * 7?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'multiply', id: 'call_1', arguments: { a: 15, b: 7 } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 105 }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: '15 * 7 = 105' }], finish_reason: 'stop' }]);
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: 'Be concise.' }]);
  });

  it('a structured final result is the output as its JSON', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'pydantic_ai.all_messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'Extract the city' }] },
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'final_result', arguments: { city: 'Paris' } }] },
          ]),
          final_result: '{"city": "Paris"}',
        },
      }),
    );
    expect(row).toMatchObject({ input: 'Extract the city', output: '{"city": "Paris"}' });
  });

  it('version 1 runs: the conversation as events in all_messages_events', () => {
    const row = rowOf(
      makeSpan({
        name: 'agent run',
        attributes: {
          agent_name: 'agent',
          all_messages_events: JSON.stringify([
            { content: 'Be helpful.', role: 'system', 'gen_ai.message.index': 0, 'event.name': 'gen_ai.system.message' },
            { content: 'hello', role: 'user', 'gen_ai.message.index': 0, 'event.name': 'gen_ai.user.message' },
            { index: 0, message: { role: 'assistant', content: 'Hi there!' }, 'event.name': 'gen_ai.choice' },
          ]),
          final_result: 'Hi there!',
        },
      }),
    );
    expect(row).toMatchObject({ span_type: 'agent', platform: 'pydantic-ai', input: 'hello', output: 'Hi there!' });
  });

  it('tool spans: tool_arguments and tool_response', () => {
    const row = rowOf(
      makeSpan({
        name: 'running tool',
        attributes: {
          'gen_ai.tool.name': 'multiply',
          'gen_ai.tool.call.id': 'call_1',
          tool_arguments: '{"a":15,"b":7}',
          tool_response: '105',
          'logfire.msg': 'running tool: multiply',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'tool', tool_name: 'multiply', tool_call_id: 'call_1', tool_arguments: '{"a":15,"b":7}', input: '{"a":15,"b":7}', output: '105' });
  });
});
