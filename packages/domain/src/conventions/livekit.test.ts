import { describe, expect, it } from 'vitest';
import { START_MS, makeSpan, rowOf } from '../test-fixtures.ts';

// Shapes as livekit-agents 1.x writes them (livekit/agents/telemetry/trace_types.py; the
// chat context is `ChatContext.to_dict()`, the function calls `FunctionCall.model_dump()`).
const scope = { name: 'livekit-agents', version: '1.2.0' };
const chatContext = {
  items: [
    { id: 'item_1', type: 'message', role: 'system', content: ['You are a weather assistant.'], interrupted: false, created_at: 1750000000.1 },
    { id: 'item_2', type: 'message', role: 'user', content: ['What is the weather in Paris?'], interrupted: false, created_at: 1750000001.2 },
    { id: 'item_3', type: 'function_call', call_id: 'call_1', arguments: '{"city":"Paris"}', name: 'get_weather', created_at: 1750000002.3 },
    { id: 'item_4', type: 'function_call_output', name: 'get_weather', call_id: 'call_1', output: 'sunny, 21°C', is_error: false, created_at: 1750000002.9 },
  ],
};

describe('LiveKit Agents', () => {
  it('llm_node: the chat context as messages (instructions apart), the answer and the calls it made; a chain above the request', () => {
    const row = rowOf(
      makeSpan({
        name: 'llm_node',
        attributes: {
          'lk.speech_id': 'speech_1',
          'lk.chat_ctx': JSON.stringify(chatContext),
          'lk.function_tools': '["get_weather"]',
          'lk.response.text': 'It is sunny in Paris, 21°C.',
          'lk.response.function_calls': JSON.stringify([{ id: 'item_5/fnc_0', call_id: 'call_2', arguments: '{"city":"Lyon"}', name: 'get_weather', extra: {} }]),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'chain', platform: 'livekit' });
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: 'You are a weather assistant.' }]);
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny, 21°C' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'It is sunny in Paris, 21°C.' },
          { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: { city: 'Lyon' } },
        ],
      },
    ]);
  });

  it('llm_request: the call with its tokens, cached tokens from lk.llm_metrics, first-token time from the completion start', () => {
    const metrics = {
      type: 'llm_metrics',
      label: 'livekit.plugins.openai.llm.LLM',
      request_id: 'chatcmpl-1',
      timestamp: 1750000003.5,
      duration: 0.9,
      ttft: 0.35,
      cancelled: false,
      completion_tokens: 20,
      prompt_tokens: 120,
      prompt_cached_tokens: 64,
      total_tokens: 140,
      tokens_per_second: 22.2,
      metadata: { model_name: 'gpt-4o-mini', model_provider: 'openai' },
    };
    const row = rowOf(
      makeSpan({
        name: 'llm_request',
        attributes: {
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 120,
          'gen_ai.usage.output_tokens': 20,
          'lk.llm_metrics': JSON.stringify(metrics),
          'langfuse.observation.completion_start_time': JSON.stringify(new Date(START_MS + 350).toISOString()),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'llm', platform: 'livekit', model: 'gpt-4o-mini', provider: 'openai', input_tokens: 120, output_tokens: 20, cached_input_tokens: 64, time_to_first_token_ms: 350 });
  });

  it('function_tool: name, arguments and output; a failed tool is an error', () => {
    const row = rowOf(
      makeSpan({
        name: 'function_tool',
        attributes: {
          'lk.function_tool.name': 'get_weather',
          'lk.function_tool.arguments': '{"city":"Paris"}',
          'lk.function_tool.output': 'weather service unavailable',
          'lk.function_tool.is_error': true,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'tool', tool_name: 'get_weather', tool_arguments: '{"city":"Paris"}', input: '{"city":"Paris"}', output: 'weather service unavailable', status: 'error' });
  });

  it('agent_session and turns: the agent, its room as the session, what the user said', () => {
    const session = rowOf(makeSpan({ name: 'agent_session', attributes: { 'lk.job_id': 'AJ_1', 'lk.agent_name': 'weather-agent', 'lk.room_name': 'room-42' } }), { scope });
    expect(session).toMatchObject({ span_type: 'agent', platform: 'livekit', agent_name: 'weather-agent', session_id: 'room-42' });
    const turn = rowOf(makeSpan({ name: 'agent_turn', attributes: { 'lk.speech_id': 'speech_1', 'lk.user_input': 'What is the weather in Paris?' } }), { scope });
    expect(turn).toMatchObject({ span_type: 'chain', input: 'What is the weather in Paris?' });
    const heard = rowOf(makeSpan({ name: 'user_turn', attributes: { 'lk.user_transcript': 'What is the weather in Paris?' } }), { scope });
    expect(heard).toMatchObject({ span_type: 'span', input: 'What is the weather in Paris?' });
  });
});
