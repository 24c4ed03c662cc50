import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const scope = { name: 'openinference.instrumentation.langchain', version: '0.1.40' };

describe('OpenInference', () => {
  it('maps an LLM span, pricing cache reads and writes', () => {
    const row = rowOf(
      makeSpan({
        name: 'ChatAnthropic',
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'claude-3-5-sonnet-20241022',
          'llm.provider': 'anthropic',
          'llm.system': 'anthropic',
          'llm.invocation_parameters': '{"max_tokens":1024}',
          'llm.token_count.prompt': 2000,
          'llm.token_count.completion': 500,
          'llm.token_count.total': 2500,
          'llm.token_count.prompt_details.cache_read': 1500,
          'llm.token_count.prompt_details.cache_write': 200,
          'input.value': '{"messages":[{"role":"user","content":"Summarise the ticket"}]}',
          'input.mime_type': 'application/json',
          'output.value': 'The customer wants a refund.',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': 'Summarise the ticket',
          'session.id': 'sess-1',
          'user.id': 'user-7',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'openinference',
      model: 'claude-3-5-sonnet-20241022',
      provider: 'anthropic',
      input: 'Summarise the ticket', // the user turn, not the request body in input.value
      output: 'The customer wants a refund.',
      input_tokens: 2000,
      output_tokens: 500,
      total_tokens: 2500,
      cached_input_tokens: 1500,
      session_id: 'sess-1',
      user_id: 'user-7',
      cost_source: 'price_table',
    });
    // claude-3-5-sonnet: input $3, cache read $0.30, cache write $3.75, output $15 per 1M.
    // (2000 - 1500 - 200) * 3 + 1500 * 0.30 + 200 * 3.75 + 500 * 15 = 900 + 450 + 750 + 7500 = 9600
    expect(row.cost).toBeCloseTo(9600 / 1e6, 12);
    expect(row.quality_flags).toEqual([]);
  });

  it('rebuilds input from indexed messages when input.value is absent', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Be terse.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'Weather in Paris?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        },
      }),
    );
    expect(row.input).toBe('Weather in Paris?');
    expect(row.output).toBe('get_weather({"city":"Paris"})');
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be terse.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', id: 'call_1', arguments: { city: 'Paris' } }] },
    ]);
    expect(row.quality_flags).toEqual(['missing_token_counts']);
  });

  it('maps a TOOL span; arguments come from the call, not the parameter schema', () => {
    const row = rowOf(
      makeSpan({
        name: 'get_weather',
        attributes: {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'get_weather',
          'tool.description': 'Current weather for a city',
          'tool.parameters': '{"type":"object","properties":{"city":{"type":"string"}}}',
          'tool_call.id': 'call_1',
          'input.value': '{"city":"Paris"}',
          'output.value': '{"temp_c":18}',
        },
      }),
    );
    expect(row).toMatchObject({
      span_type: 'tool',
      tool_name: 'get_weather',
      tool_call_id: 'call_1',
      tool_arguments: '{"city":"Paris"}',
      input: '{"city":"Paris"}',
      output: '{"temp_c":18}',
      cost: 0,
      cost_source: '',
    });
  });

  it('maps an AGENT span', () => {
    const row = rowOf(
      makeSpan({
        name: 'CodeAgent.run',
        attributes: {
          'openinference.span.kind': 'AGENT',
          'agent.name': 'research_agent',
          'input.value': 'Find the latest release notes',
          'output.value': 'v2.3 adds streaming',
        },
      }),
    );
    expect(row).toMatchObject({
      span_type: 'agent',
      agent_name: 'research_agent',
      input: 'Find the latest release notes',
      output: 'v2.3 adds streaming',
      platform: 'openinference',
    });
  });

  it('names an AGENT span without agent.name by its span name (traceAgent)', () => {
    const row = rowOf(makeSpan({ name: 'weather-agent', attributes: { 'openinference.span.kind': 'AGENT', 'input.value': 'Weather?' } }));
    expect(row).toMatchObject({ span_type: 'agent', agent_name: 'weather-agent' });
    const chain = rowOf(makeSpan({ name: 'RunnableSequence', attributes: { 'openinference.span.kind': 'CHAIN' } }));
    expect(chain.agent_name).toBe('');
  });

  it.each([
    ['CHAIN', 'chain'],
    ['RETRIEVER', 'retrieval'],
    ['EMBEDDING', 'embedding'],
    ['RERANKER', 'reranker'],
    ['GUARDRAIL', 'guardrail'],
    ['EVALUATOR', 'evaluator'],
    ['UNKNOWN', 'span'],
  ])('maps kind %s to %s', (kind, spanType) => {
    expect(rowOf(makeSpan({ attributes: { 'openinference.span.kind': kind } })).span_type).toBe(spanType);
  });

  it('takes an explicit llm.cost.total over the price table', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'llm.token_count.prompt': 1000,
          'llm.token_count.completion': 100,
          'llm.cost.total': 0.0042,
        },
      }),
    );
    expect(row.cost).toBe(0.0042);
    expect(row.cost_source).toBe('explicit');
  });

  it('reads content parts, images and tool results of indexed messages (openai instrumentation)', () => {
    const row = rowOf(
      makeSpan({
        name: 'OpenAI Chat Completions',
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini-2024-07-18',
          'llm.provider': 'openai',
          'llm.system': 'openai',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.contents.0.message_content.type': 'text',
          'llm.input_messages.0.message.contents.0.message_content.text': 'What is on this receipt?',
          'llm.input_messages.0.message.contents.1.message_content.type': 'image',
          'llm.input_messages.0.message.contents.1.message_content.image.image.url': `data:image/jpeg;base64,${Buffer.alloc(600).toString('base64')}`,
          'llm.input_messages.1.message.role': 'assistant',
          'llm.input_messages.1.message.tool_calls.0.tool_call.id': 'call_7',
          'llm.input_messages.1.message.tool_calls.0.tool_call.function.name': 'ocr',
          'llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments': '{}',
          'llm.input_messages.2.message.role': 'tool',
          'llm.input_messages.2.message.content': 'Total: 42 EUR',
          'llm.input_messages.2.message.tool_call_id': 'call_7',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'The total is 42 EUR.',
          'llm.token_count.prompt': 900,
          'llm.token_count.completion': 300,
          'llm.token_count.completion_details.reasoning': 200,
        },
      }),
      { scope: { name: '@arizeai/openinference-instrumentation-openai', version: '3.0.0' } },
    );
    expect(row).toMatchObject({ input: 'What is on this receipt?', output: 'The total is 42 EUR.', reasoning_tokens: 200 });
    expect(JSON.parse(row.input_messages)).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is on this receipt?' },
          { type: 'blob', modality: 'image', mime_type: 'image/jpeg', size: 600 },
        ],
      },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'ocr', id: 'call_7', arguments: {} }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_7', response: 'Total: 42 EUR' }] },
    ]);
  });

  it('reduces JSON request and response bodies in input.value / output.value to their messages', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'input.value': JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hello' }], temperature: 0.2 }),
          'input.mime_type': 'application/json',
          'output.value': JSON.stringify({
            id: 'chatcmpl_abc',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hi, how can I help?' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
          }),
          'output.mime_type': 'application/json',
        },
      }),
    );
    expect(row).toMatchObject({ input: 'Hello', output: 'Hi, how can I help?' });
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Hi, how can I help?' }], finish_reason: 'stop' }]);
    // The bodies stay in the attributes as sent.
    expect(row.attributes['output.value']).toContain('chatcmpl_abc');
  });

  it('reads embedding spans: model from embedding.model_name, input from the embedded texts', () => {
    const row = rowOf(
      makeSpan({
        name: 'OpenAI Embeddings',
        attributes: {
          'openinference.span.kind': 'EMBEDDING',
          'embedding.model_name': 'text-embedding-3-small',
          'embedding.embeddings.0.embedding.text': 'first document',
          'embedding.embeddings.0.embedding.vector': [0.1, 0.2],
          'embedding.embeddings.1.embedding.text': 'second document',
          'input.value': '{"input":["first document","second document"],"model":"text-embedding-3-small"}',
          'input.mime_type': 'application/json',
          'llm.token_count.prompt': 8,
        },
      }),
    );
    expect(row).toMatchObject({ span_type: 'embedding', model: 'text-embedding-3-small', input: 'first document\nsecond document', input_messages: '' });
  });

  it('names a tool span by its span name when tool.name is absent, and reads chain texts', () => {
    const tool = rowOf(makeSpan({ name: 'lookup_order', attributes: { 'openinference.span.kind': 'TOOL', 'input.value': '{"id":"A1"}', 'output.value': '"shipped"' } }));
    expect(tool).toMatchObject({ tool_name: 'lookup_order', input: '{"id":"A1"}', output: 'shipped', tool_arguments: '{"id":"A1"}' });
    const chain = rowOf(
      makeSpan({
        name: 'RunnableSequence',
        attributes: {
          'openinference.span.kind': 'CHAIN',
          'input.value': '{"input":"What is LangChain?"}',
          'input.mime_type': 'application/json',
          'output.value': '{"output":"A framework for LLM apps."}',
          'output.mime_type': 'application/json',
        },
      }),
    );
    expect(chain).toMatchObject({ input: 'What is LangChain?', output: 'A framework for LLM apps.', input_messages: '' });
  });
});
