import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';
import { objectConversation } from './object-texts.ts';

const lc = (className: string, kwargs: Record<string, unknown>) => ({ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', className], kwargs });
const question = lc('HumanMessage', { content: 'What is the capital of France?', additional_kwargs: {}, response_metadata: {} });
const toolCall = lc('AIMessage', {
  content: '',
  tool_calls: [{ name: 'search', args: { q: 'capital of France' }, id: 'call_1', type: 'tool_call' }],
  additional_kwargs: {},
  response_metadata: {},
});
const toolResult = lc('ToolMessage', { content: 'Paris', tool_call_id: 'call_1', name: 'search' });
const answer = lc('AIMessage', { content: 'The capital of France is Paris.', tool_calls: [], additional_kwargs: {}, response_metadata: {} });

describe('texts of framework objects', () => {
  it('reads LangGraph state on an OpenInference chain as the question and the answer; the raw state stays in the attributes', () => {
    const input = JSON.stringify({ messages: [question] });
    const output = JSON.stringify({ messages: [question, toolCall, toolResult, answer] });
    const row = rowOf(makeSpan({ name: 'LangGraph', attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': input, 'input.mime_type': 'application/json', 'output.value': output } }));
    expect(row).toMatchObject({ span_type: 'chain', input: 'What is the capital of France?', output: 'The capital of France is Paris.' });
    expect(row.attributes['input.value']).toBe(input);
    expect(row.attributes['output.value']).toBe(output);
    expect(JSON.parse(row.output_messages)).toHaveLength(4);
  });

  it('reads one serialized message (a RunnableSequence’s AIMessage result) as that message', () => {
    const row = rowOf(makeSpan({ name: 'RunnableSequence', attributes: { 'openinference.span.kind': 'CHAIN', 'output.value': JSON.stringify(answer) } }));
    expect(row.output).toBe('The capital of France is Paris.');
    const asked = rowOf(makeSpan({ name: 'RunnableSequence', attributes: { 'openinference.span.kind': 'CHAIN', 'output.value': JSON.stringify(toolCall) } }));
    expect(asked.output).toBe('search({"q":"capital of France"})');
  });

  it('reads a Genkit generate action’s request and response as the question and the answer', () => {
    const request = {
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: [{ text: 'What is the capital of France?' }] }],
      config: { temperature: 0 },
    };
    const response = {
      message: { role: 'model', content: [{ text: 'Paris.' }] },
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 2 },
    };
    const row = rowOf(
      makeSpan({
        name: 'generate',
        attributes: {
          'genkit:type': 'util',
          'genkit:name': 'generate',
          'genkit:isRoot': true,
          'genkit:input': JSON.stringify(request),
          'genkit:output': JSON.stringify(response),
          'genkit:state': 'success',
        },
      }),
    );
    expect(row).toMatchObject({ span_type: 'chain', input: 'What is the capital of France?', output: 'Paris.' });
    expect(row.attributes['genkit:input']).toBe(JSON.stringify(request));
  });

  it('keeps texts that hold no conversation as they are', () => {
    expect(objectConversation('{"city":"Paris"}', 'input')).toBeUndefined();
    expect(objectConversation('["a","b"]', 'input')).toBeUndefined();
    expect(objectConversation('plain text', 'output')).toBeUndefined();
    const row = rowOf(makeSpan({ attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': '{"city":"Paris","days":3}', 'output.value': '{"input":"hi"}' } }));
    expect(row).toMatchObject({ input: '{"city":"Paris","days":3}', output: 'hi', input_messages: '' });
  });
});
