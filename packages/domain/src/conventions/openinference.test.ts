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
      input: '{"messages":[{"role":"user","content":"Summarise the ticket"}]}', // input.value beats the indexed messages
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
    expect(JSON.parse(row.input)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
    expect(JSON.parse(row.output)).toEqual([
      { role: 'assistant', tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
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
});
