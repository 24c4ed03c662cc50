import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

// Shapes as MLflow 3 tracing exports them over OTLP: every attribute value JSON-encoded,
// strings quoted; OpenAI autologging records the request and response bodies as inputs and outputs.
const scope = { name: 'mlflow.tracing', version: '3.1.0' };
const json = (value: unknown) => JSON.stringify(value);

describe('MLflow', () => {
  it('a CHAT_MODEL span: request and response bodies as messages, model, token usage and cost', () => {
    const row = rowOf(
      makeSpan({
        name: 'Completions',
        attributes: {
          'mlflow.traceRequestId': json('tr-0af7651916cd43dd'),
          'mlflow.spanType': json('CHAT_MODEL'),
          'mlflow.spanFunctionName': json('create'),
          'mlflow.spanInputs': json({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'What is the capital of France?' }], temperature: 0 }),
          'mlflow.spanOutputs': json({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            model: 'gpt-4o-mini-2024-07-18',
            choices: [{ index: 0, message: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 },
          }),
          'mlflow.llm.model': json('gpt-4o-mini'),
          'mlflow.chat.tokenUsage': json({ input_tokens: 120, output_tokens: 20, total_tokens: 140 }),
          'mlflow.llm.cost': json({ input_cost: 0.000018, output_cost: 0.000012, total_cost: 0.00003 }),
          'mlflow.message.format': json('openai'),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'mlflow',
      model: 'gpt-4o-mini',
      provider: 'openai',
      input: 'What is the capital of France?',
      output: 'Paris is the capital of France.',
      input_tokens: 120,
      output_tokens: 20,
      cost: 0.00003,
    });
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Paris is the capital of France.' }], finish_reason: 'stop' }]);
  });

  it('older versions: the conversation in mlflow.chat.messages, the answer last', () => {
    const row = rowOf(
      makeSpan({
        name: 'ChatOpenAI',
        attributes: {
          'mlflow.spanType': json('CHAT_MODEL'),
          'mlflow.chat.messages': json([
            { role: 'user', content: 'What is the weather in Paris?' },
            { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          ]),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'llm', input: 'What is the weather in Paris?' });
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }]);
  });

  it('TOOL, AGENT and CHAIN spans: inputs and outputs as readable text, tool arguments', () => {
    const tool = rowOf(
      makeSpan({ name: 'get_weather', attributes: { 'mlflow.spanType': json('TOOL'), 'mlflow.spanInputs': json({ city: 'Paris' }), 'mlflow.spanOutputs': json('sunny, 21°C') } }),
      { scope },
    );
    expect(tool).toMatchObject({ span_type: 'tool', tool_name: 'get_weather', tool_arguments: '{"city":"Paris"}', input: '{"city":"Paris"}', output: 'sunny, 21°C' });
    const agent = rowOf(
      makeSpan({ name: 'weather_agent', attributes: { 'mlflow.spanType': json('AGENT'), 'mlflow.spanInputs': json('What is the weather in Paris?'), 'mlflow.spanOutputs': json('It is sunny.') } }),
      { scope },
    );
    expect(agent).toMatchObject({ span_type: 'agent', input: 'What is the weather in Paris?', output: 'It is sunny.' });
    const unknown = rowOf(makeSpan({ name: 'step', attributes: { 'mlflow.spanType': json('UNKNOWN') } }), { scope });
    expect(unknown).toMatchObject({ span_type: 'span', platform: 'mlflow' });
  });
});
