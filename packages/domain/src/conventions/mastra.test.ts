import { describe, expect, it } from 'vitest';
import { makeSpan, nsAfterStart, rowOf } from '../test-fixtures.ts';

const scope = { name: '@mastra/otel', version: '1.0.0' };
const INSTRUCTIONS = 'You are a helpful weather assistant. Always ask for a location.';

describe('Mastra', () => {
  it('1.x agent run: input and output from the run, instructions kept apart, session and user from memory metadata', () => {
    const row = rowOf(
      makeSpan({
        name: 'invoke_agent Weather Agent',
        kind: 2,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'mastra.span.type': 'agent_run',
          'gen_ai.agent.id': 'weatherAgent',
          'gen_ai.agent.name': 'Weather Agent',
          'gen_ai.system_instructions': INSTRUCTIONS,
          'gen_ai.conversation.id': 'thread-1',
          'mastra.agent_run.input': JSON.stringify([{ role: 'user', content: 'What is the weather in Paris?' }]),
          'mastra.agent_run.output': JSON.stringify({ text: 'It is sunny in Paris, 21°C.', files: [] }),
          'mastra.metadata.resourceId': 'user-42',
          'mastra.metadata.threadId': 'thread-1',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'agent',
      platform: 'mastra',
      agent_name: 'Weather Agent',
      input: 'What is the weather in Paris?',
      output: 'It is sunny in Paris, 21°C.',
      session_id: 'thread-1',
      user_id: 'user-42',
    });
    // Every run of this agent shares its instructions; they are not its input.
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: INSTRUCTIONS }]);
    expect(row.input).not.toContain(INSTRUCTIONS);
  });

  it('1.x model generation: GenAI messages, cached tokens, completion start as time to first token, error finish as error', () => {
    const row = rowOf(
      makeSpan({
        name: 'chat gpt-4o-mini',
        kind: 3,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'mastra.span.type': 'model_generation',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.provider.name': 'openai',
          // As Mastra converts its messages: tool arguments and results as JSON text.
          'gen_ai.input.messages': JSON.stringify([
            { role: 'system', parts: [{ type: 'text', content: INSTRUCTIONS }] },
            { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'weatherTool', arguments: '{"location":"Paris"}' }] },
            { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', name: 'weatherTool', response: '{"temperature":21}' }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny, 21°C.' }] }]),
          'gen_ai.usage.input_tokens': 1200,
          'gen_ai.usage.output_tokens': 20,
          'gen_ai.usage.cache_read.input_tokens': 1024,
          'mastra.completion_start_time': '2025-01-01T00:00:00.640Z',
          'gen_ai.response.finish_reasons': '["error"]',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      input: 'Weather in Paris?',
      output: 'Sunny, 21°C.',
      cached_input_tokens: 1024,
      time_to_first_token_ms: 640,
      status: 'error',
    });
    expect(JSON.parse(row.input_messages)[2]).toEqual({
      role: 'assistant',
      parts: [{ type: 'tool_call', name: 'weatherTool', id: 'call_1', arguments: { location: 'Paris' } }],
    });
  });

  it('1.x tool call and workflow step', () => {
    const tool = rowOf(
      makeSpan({
        name: 'execute_tool weatherTool',
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'mastra.span.type': 'tool_call',
          'gen_ai.tool.name': 'weatherTool',
          'gen_ai.tool.call.id': 'call_1',
          'gen_ai.tool.call.arguments': '{"location":"Paris"}',
          'gen_ai.tool.call.result': '{"temperature":21}',
        },
      }),
      { scope },
    );
    expect(tool).toMatchObject({ span_type: 'tool', tool_name: 'weatherTool', tool_arguments: '{"location":"Paris"}', input: '{"location":"Paris"}', output: '{"temperature":21}' });
    const step = rowOf(
      makeSpan({
        name: 'workflow step: fetch-weather',
        attributes: {
          'mastra.span.type': 'workflow_step',
          'mastra.workflow_step.input': '{"city":"Paris"}',
          'mastra.workflow_step.output': '"sunny"',
        },
      }),
      { scope },
    );
    expect(step).toMatchObject({ span_type: 'chain', input: '{"city":"Paris"}', output: 'sunny' });
  });

  it('0.x AI tracing: generic input/output keys, llm_generation, tool input/output, agent.id', () => {
    const agent = rowOf(
      makeSpan({
        name: "agent run: 'weatherAgent'",
        attributes: {
          'gen_ai.operation.name': 'agent.run',
          'mastra.span.type': 'agent_run',
          'agent.id': 'weatherAgent',
          input: JSON.stringify('What is the weather in Paris?'),
          output: JSON.stringify({ text: 'Sunny.' }),
        },
      }),
      { scope: { name: '@mastra/otel', version: '1.0.0' } },
    );
    expect(agent).toMatchObject({ span_type: 'agent', agent_name: 'weatherAgent', input: 'What is the weather in Paris?', output: 'Sunny.' });
    // 0.24 puts the run's session and user as bare attributes of the agent run.
    const withSession = rowOf(
      makeSpan({ name: "agent run: 'weatherAgent'", attributes: { 'mastra.span.type': 'agent_run', 'agent.id': 'weatherAgent', sessionId: 'sess-024', userId: 'user-024' } }),
    );
    expect(withSession).toMatchObject({ session_id: 'sess-024', user_id: 'user-024' });
    const llm = rowOf(
      makeSpan({
        name: 'chat gpt-4o',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'mastra.span.type': 'llm_generation',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.system': 'openai.chat',
          input: JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] }),
          'gen_ai.prompt': JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] }),
          output: JSON.stringify({ text: '', toolCalls: [{ toolCallId: 'c1', toolName: 'weatherTool', args: { location: 'Paris' } }] }),
          'gen_ai.usage.input_tokens': 50,
          'gen_ai.usage.output_tokens': 5,
          'gen_ai.usage.cached_input_tokens': 32,
        },
      }),
    );
    expect(llm).toMatchObject({ span_type: 'llm', provider: 'openai', input: 'Hi', output: 'weatherTool({"location":"Paris"})', cached_input_tokens: 32 });
    const tool = rowOf(
      makeSpan({
        attributes: { 'mastra.span.type': 'tool_call', 'gen_ai.tool.name': 'weatherTool', 'gen_ai.tool.input': '{"location":"Paris"}', 'gen_ai.tool.output': '{"t":21}' },
        endTimeUnixNano: nsAfterStart(10),
      }),
    );
    expect(tool).toMatchObject({ span_type: 'tool', tool_arguments: '{"location":"Paris"}', output: '{"t":21}' });
  });

  it('1.x with inference spans (as 1.71 sends them): the call is the model_inference span; the generation above it is a chain', () => {
    const metadata = { 'mastra.metadata.sessionId': 'session-1', 'mastra.metadata.userId': 'user-1' };
    const generation = rowOf(
      makeSpan({
        name: 'model_generation gpt-4o-mini',
        attributes: {
          'gen_ai.operation.name': 'model_generation',
          'mastra.span.type': 'model_generation',
          'mastra.model_generation.input': JSON.stringify({ messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }] }),
          'mastra.model_generation.output': JSON.stringify({ files: [], reasoning: [], sources: [], text: 'Paris.', warnings: [] }),
          ...metadata,
        },
      }),
      { scope },
    );
    expect(generation).toMatchObject({ span_type: 'chain', input: 'Capital of France?', output: 'Paris.', input_tokens: 0, session_id: 'session-1' });
    const inference = rowOf(
      makeSpan({
        name: 'chat gpt-4o-mini',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'mastra.span.type': 'model_inference',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.provider.name': 'openai.chat',
          'gen_ai.usage.input_tokens': '120',
          'gen_ai.usage.output_tokens': '20',
          'gen_ai.usage.reasoning_tokens': '8',
          'gen_ai.usage.cache_read.input_tokens': '64',
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Paris.' }] }]),
          ...metadata,
        },
      }),
      { scope },
    );
    expect(inference).toMatchObject({ span_type: 'llm', model: 'gpt-4o-mini', provider: 'openai', output: 'Paris.', input_tokens: 120, cached_input_tokens: 64, reasoning_tokens: 8, user_id: 'user-1' });
  });

  it('1.x: a refused inference span is an error, though Mastra marks it OK (its finish reason says error)', () => {
    const row = rowOf(
      makeSpan({
        name: 'chat missing-model',
        status: { code: 1, message: '' },
        attributes: {
          'gen_ai.operation.name': 'chat',
          'mastra.span.type': 'model_inference',
          'gen_ai.request.model': 'missing-model',
          'gen_ai.provider.name': 'openai.chat',
          'gen_ai.response.finish_reasons': '["error"]',
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: '' }] }]),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ span_type: 'llm', status: 'error', output: '' });
  });
});
