import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const association = {
  'traceloop.association.properties.session_id': 'chat-77',
  'traceloop.association.properties.user_id': 'u-5',
  'traceloop.workflow.name': 'joke_generator',
};

describe('OpenLLMetry / Traceloop', () => {
  it('maps workflow and task spans to chains with entity input/output', () => {
    const workflow = rowOf(
      makeSpan({
        name: 'joke_generator.workflow',
        attributes: {
          'traceloop.span.kind': 'workflow',
          'traceloop.entity.name': 'joke_generator',
          'traceloop.entity.input': '{"args":[],"kwargs":{"topic":"otters"}}',
          'traceloop.entity.output': '"Why did the otter..."',
          ...association,
        },
      }),
    );
    expect(workflow).toMatchObject({
      span_type: 'chain',
      platform: 'openllmetry',
      input: '{"topic":"otters"}', // the keyword arguments, unwrapped
      output: 'Why did the otter...', // the returned string, unquoted
      session_id: 'chat-77',
      user_id: 'u-5',
    });
    const task = rowOf(makeSpan({ attributes: { 'traceloop.span.kind': 'task', 'traceloop.entity.name': 'translate' } }));
    expect(task.span_type).toBe('chain');
  });

  it('maps agent and tool spans, naming them from the entity name', () => {
    const agent = rowOf(makeSpan({ attributes: { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'planner' } }));
    expect(agent).toMatchObject({ span_type: 'agent', agent_name: 'planner' });
    const tool = rowOf(
      makeSpan({
        attributes: {
          'traceloop.span.kind': 'tool',
          'traceloop.entity.name': 'search_web',
          'traceloop.entity.input': '{"args": [], "kwargs": {"query": "otters"}}',
          'traceloop.entity.output': '["Otters hold hands while sleeping."]',
        },
      }),
    );
    expect(tool).toMatchObject({
      span_type: 'tool',
      tool_name: 'search_web',
      tool_arguments: '{"query":"otters"}',
      input: '{"query":"otters"}',
      output: '["Otters hold hands while sleeping."]',
    });
  });

  it('maps an LLM span with indexed prompts and completions', () => {
    const row = rowOf(
      makeSpan({
        name: 'openai.chat',
        kind: 3,
        attributes: {
          'llm.request.type': 'chat',
          'gen_ai.system': 'OpenAI',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.usage.prompt_tokens': 50,
          'gen_ai.usage.completion_tokens': 20,
          'llm.usage.total_tokens': 70,
          'llm.is_streaming': false,
          'gen_ai.prompt.0.role': 'system',
          'gen_ai.prompt.0.content': 'Tell jokes.',
          'gen_ai.prompt.1.role': 'user',
          'gen_ai.prompt.1.content': 'One about otters.',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'Why did the otter...',
          'gen_ai.completion.0.finish_reason': 'stop',
          ...association,
        },
      }),
      { scope: { name: 'opentelemetry.instrumentation.openai.v1', version: '0.40.0' } },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'openllmetry',
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      input_tokens: 50,
      output_tokens: 20,
      total_tokens: 70,
      session_id: 'chat-77',
      quality_flags: [],
    });
    expect(row.input).toBe('One about otters.');
    expect(row.output).toBe('Why did the otter...');
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Tell jokes.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'One about otters.' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Why did the otter...' }], finish_reason: 'stop' },
    ]);
    // gpt-4o: $2.50 input, $10 output per 1M: 50 * 2.5 + 20 * 10 = 125 + 200 = 325
    expect(row.cost).toBeCloseTo(325 / 1e6, 12);
  });

  it('maps embedding request types', () => {
    const row = rowOf(makeSpan({ attributes: { 'llm.request.type': 'embedding', 'gen_ai.request.model': 'text-embedding-3-large' } }));
    expect(row.span_type).toBe('embedding');
  });

  it('reads indexed tool calls, tool results and list content JSON of model spans', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'llm.request.type': 'chat',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': JSON.stringify([
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: 'https://x.test/sky.jpg' } },
          ]),
          'gen_ai.prompt.1.role': 'assistant',
          'gen_ai.prompt.1.tool_calls.0.id': 'call_1',
          'gen_ai.prompt.1.tool_calls.0.name': 'get_weather',
          'gen_ai.prompt.1.tool_calls.0.arguments': '{"city":"Paris"}',
          'gen_ai.prompt.2.role': 'tool',
          'gen_ai.prompt.2.content': '18°C',
          'gen_ai.prompt.2.tool_call_id': 'call_1',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.finish_reason': 'tool_calls',
          'gen_ai.completion.0.tool_calls.0.id': 'call_2',
          'gen_ai.completion.0.tool_calls.0.name': 'get_umbrella',
          'gen_ai.completion.0.tool_calls.0.arguments': '{}',
        },
      }),
    );
    expect(row).toMatchObject({ input: 'Weather here?', output: 'get_umbrella({})' });
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather here?' }, { type: 'uri', modality: 'image', uri: 'https://x.test/sky.jpg' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', id: 'call_1', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '18°C' }] },
    ]);
  });

  it('unwraps single arguments, the LangChain callback form and message states', () => {
    const single = rowOf(
      makeSpan({
        attributes: { 'traceloop.span.kind': 'task', 'traceloop.entity.input': '{"args": ["Translate: bonjour"], "kwargs": {}}', 'traceloop.entity.output': '"hello"' },
      }),
    );
    expect(single).toMatchObject({ input: 'Translate: bonjour', output: 'hello' });
    const langchain = rowOf(
      makeSpan({
        attributes: {
          'traceloop.span.kind': 'workflow',
          'traceloop.entity.input': JSON.stringify({ inputs: { question: 'Capital of France?' }, tags: [], metadata: {}, kwargs: { name: 'RunnableSequence' } }),
          'traceloop.entity.output': JSON.stringify({ outputs: 'Paris', kwargs: { tags: [] } }),
        },
      }),
    );
    expect(langchain).toMatchObject({ input: '{"question":"Capital of France?"}', output: 'Paris' });
    const graph = rowOf(
      makeSpan({
        attributes: {
          'traceloop.span.kind': 'workflow',
          'traceloop.entity.input': JSON.stringify({ inputs: { messages: [{ role: 'user', content: 'Plan a trip' }] }, tags: [], metadata: {}, kwargs: {} }),
          'traceloop.entity.output': JSON.stringify({
            outputs: { messages: [{ role: 'user', content: 'Plan a trip' }, { role: 'assistant', content: 'Here is a plan.' }] },
            kwargs: {},
          }),
        },
      }),
    );
    expect(graph).toMatchObject({ input: 'Plan a trip', output: 'Here is a plan.' });
  });
});
