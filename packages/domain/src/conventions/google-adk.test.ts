import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const scope = { name: 'gcp.vertex.agent', version: '1.15.0' };

describe('Google ADK', () => {
  it('call_llm: the Gemini request and response reduced to messages, usage details from the response', () => {
    const request = {
      model: 'gemini-2.0-flash',
      config: { system_instruction: 'You are a weather agent.', tools: [{ function_declarations: [{ name: 'get_weather' }] }] },
      contents: [
        { parts: [{ text: 'Weather in Paris?' }], role: 'user' },
        { parts: [{ function_call: { id: 'adk-1', args: { city: 'Paris' }, name: 'get_weather' } }], role: 'model' },
        { parts: [{ function_response: { id: 'adk-1', name: 'get_weather', response: { result: 'sunny, 21°C' } } }], role: 'user' },
      ],
    };
    const response = {
      content: { parts: [{ text: 'It is sunny in Paris, 21°C.' }], role: 'model' },
      usage_metadata: { cached_content_token_count: 64, candidates_token_count: 12, prompt_token_count: 180, thoughts_token_count: 20, total_token_count: 212 },
    };
    const row = rowOf(
      makeSpan({
        name: 'call_llm',
        attributes: {
          'gen_ai.system': 'gcp.vertex.agent',
          'gen_ai.request.model': 'gemini-2.0-flash',
          'gcp.vertex.agent.invocation_id': 'e-1',
          'gcp.vertex.agent.session_id': 'session-9',
          'gcp.vertex.agent.event_id': 'ev-1',
          'gcp.vertex.agent.llm_request': JSON.stringify(request),
          'gcp.vertex.agent.llm_response': JSON.stringify(response),
          'gen_ai.usage.input_tokens': 180,
          'gen_ai.usage.output_tokens': 12,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'google-adk',
      provider: 'google',
      model: 'gemini-2.0-flash',
      input: 'Weather in Paris?',
      output: 'It is sunny in Paris, 21°C.',
      session_id: 'session-9',
      cached_input_tokens: 64,
      reasoning_tokens: 20,
    });
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: 'You are a weather agent.' }]);
    expect(JSON.parse(row.input_messages)[2]).toEqual({ role: 'tool', parts: [{ type: 'tool_call_response', id: 'adk-1', response: { result: 'sunny, 21°C' } }] });
  });

  it('execute_tool: arguments and response', () => {
    const row = rowOf(
      makeSpan({
        name: 'execute_tool get_weather',
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.id': 'adk-1',
          'gcp.vertex.agent.tool_call_args': '{"city": "Paris"}',
          'gcp.vertex.agent.tool_response': '{"result": "sunny, 21°C"}',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'tool', tool_name: 'get_weather', tool_arguments: '{"city": "Paris"}', input: '{"city": "Paris"}', output: '{"result": "sunny, 21°C"}' });
  });

  it('execute_tool with the empty llm_request / llm_response ADK also sets on it: a tool, not a model call', () => {
    const row = rowOf(
      makeSpan({
        name: 'execute_tool get_weather',
        attributes: {
          'gen_ai.system': 'gcp.vertex.agent',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.id': 'adk-1',
          'gcp.vertex.agent.llm_request': '{}',
          'gcp.vertex.agent.llm_response': '{}',
          'gcp.vertex.agent.tool_call_args': '{"city": "Paris"}',
          'gcp.vertex.agent.tool_response': '{"result": "sunny, 21°C"}',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'tool', tool_name: 'get_weather', input: '{"city": "Paris"}', output: '{"result": "sunny, 21°C"}', quality_flags: [] });
  });
});
