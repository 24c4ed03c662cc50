/**
 * Strands Agents (Python SDK, default conventions): GenAI semconv with the messages as span
 * events whose content is the JSON of Bedrock Converse content blocks, `gen_ai.system` /
 * `gen_ai.provider.name` naming the SDK itself. Shapes as its tracer
 * (`strands/telemetry/tracer.py`) emits them, and as the TypeScript SDK does where it differs
 * (test/traces/libraries/strands.test.ts drives that one).
 */
import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const common = { 'gen_ai.system': 'strands-agents', 'gen_ai.event.start_time': '2026-11-27T10:00:00+00:00' };
const event = (name: string, attributes: Record<string, string>) => ({ timeUnixNano: '1735689600000000000', name, attributes, droppedAttributesCount: 0 });

describe('Strands Agents, default conventions', () => {
  it('reads the content blocks of a model call in and out, and takes the provider from the model', () => {
    const row = rowOf(
      makeSpan({
        name: 'chat',
        attributes: {
          ...common,
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 20,
          'gen_ai.usage.output_tokens': 5,
          'gen_ai.usage.total_tokens': 25,
        },
        events: [
          event('gen_ai.system.message', { content: '[{"text": "Be brief."}]' }),
          event('gen_ai.user.message', { content: '[{"text": "What is the capital of France?"}]' }),
          event('gen_ai.choice', { finish_reason: 'end_turn', message: '[{"text": "Paris."}]' }),
        ],
      }),
    );
    expect(row).toMatchObject({ span_type: 'llm', model: 'gpt-4o', provider: 'openai', input: 'What is the capital of France?', output: 'Paris.' });
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Paris.' }], finish_reason: 'end_turn' }]);
    expect(row.cost).toBeGreaterThan(0);
  });

  it('reads toolUse and toolResult blocks as tool calls and their results', () => {
    const row = rowOf(
      makeSpan({
        name: 'chat',
        attributes: { ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        events: [
          event('gen_ai.user.message', { content: '[{"text": "Weather in Paris?"}]' }),
          event('gen_ai.assistant.message', {
            content: '[{"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}]',
          }),
          event('gen_ai.tool.message', {
            content: '[{"toolResult": {"toolUseId": "tooluse_1", "status": "success", "content": [{"text": "Sunny"}]}}]',
          }),
          event('gen_ai.choice', {
            finish_reason: 'tool_use',
            message: '[{"reasoningContent": {"reasoningText": {"text": "Check again."}}}, {"toolUse": {"toolUseId": "tooluse_2", "name": "get_weather", "input": {"city": "Lyon"}}}]',
          }),
        ],
      }),
    );
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'tooluse_1', response: 'Sunny' }] },
    ]);
    expect(row.output).toBe('get_weather({"city":"Lyon"})');
    expect(JSON.parse(row.output_messages)[0].parts[0]).toEqual({ type: 'reasoning', content: 'Check again.' });
  });

  it('takes a tool span’s arguments from its gen_ai.tool.message event and its result from gen_ai.choice', () => {
    const row = rowOf(
      makeSpan({
        name: 'execute_tool get_weather',
        attributes: {
          ...common,
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.id': 'tooluse_1',
          'gen_ai.tool.status': 'success',
        },
        events: [
          event('gen_ai.tool.message', { role: 'tool', content: '{"city": "Paris"}', id: 'tooluse_1' }),
          event('gen_ai.choice', { message: '[{"text": "Sunny"}]', id: 'tooluse_1' }),
        ],
      }),
    );
    expect(row).toMatchObject({
      span_type: 'tool',
      tool_name: 'get_weather',
      tool_call_id: 'tooluse_1',
      tool_arguments: '{"city": "Paris"}',
      input: '{"city": "Paris"}',
      output: 'Sunny',
      provider: '',
    });
  });

  it('reads the agent run: its question, its plain-text answer, its name, and no SDK as provider', () => {
    const row = rowOf(
      makeSpan({
        name: 'invoke_agent Strands Agents',
        attributes: {
          ...common,
          'gen_ai.provider.name': 'strands-agents',
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'Strands Agents',
          'gen_ai.request.model': 'gpt-4o-mini',
        },
        events: [
          event('gen_ai.user.message', { content: '[{"text": "What is the capital of France?"}]' }),
          event('gen_ai.choice', { message: 'The capital of France is Paris.\n', finish_reason: 'end_turn' }),
        ],
      }),
    );
    expect(row).toMatchObject({
      span_type: 'agent',
      agent_name: 'Strands Agents',
      provider: 'openai',
      input: 'What is the capital of France?',
      output: 'The capital of France is Paris.\n',
    });
  });

  it('reads the TypeScript SDK’s answer blocks (tagged `type: "toolUse"`) and a tool span’s `json` result', () => {
    // As @strands-agents/sdk 1.19 writes them (test/traces/libraries/strands.test.ts drives it).
    const asked = event('gen_ai.choice', { finish_reason: 'toolUse', message: '[{"type":"toolUse","name":"get_weather","toolUseId":"call_1","input":{"city":"Paris"}}]' });
    const call = rowOf(makeSpan({ name: 'chat', attributes: { ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' }, events: [asked] }));
    expect(JSON.parse(call.output_messages)[0].parts).toEqual([{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(call.output).toBe('get_weather({"city":"Paris"})');
    const toolSpan = rowOf(
      makeSpan({
        name: 'execute_tool get_weather',
        attributes: { ...common, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1' },
        events: [
          event('gen_ai.tool.message', { role: 'tool', content: '{"city":"Paris"}', id: 'call_1' }),
          event('gen_ai.choice', { message: '[{"json":{"city":"Paris","forecast":"sunny"}}]', id: 'call_1' }),
        ],
      }),
    );
    expect(toolSpan).toMatchObject({ span_type: 'tool', tool_arguments: '{"city":"Paris"}', output: '{"city":"Paris","forecast":"sunny"}' });
  });

  it('keeps a user’s text that is JSON but not content blocks as text', () => {
    const row = rowOf(
      makeSpan({
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        events: [event('gen_ai.user.message', { content: '[1, 2, 3]' })],
      }),
    );
    expect(row.input).toBe('[1, 2, 3]');
  });
});
