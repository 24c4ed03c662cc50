/** Spans as the Langfuse SDKs write them (`LangfuseOtelSpanAttributes` of `@langfuse/core`, scope `langfuse-sdk`). */
import { describe, expect, it } from 'vitest';
import { makeSpan, rowOf } from '../test-fixtures.ts';

const scope = { name: 'langfuse-sdk', version: '5.11.1' };

describe('Langfuse SDK attributes', () => {
  it('a generation: model, messages, usage buckets with cache and reasoning, cost, environment', () => {
    const row = rowOf(
      makeSpan({
        name: 'answer',
        attributes: {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.model.name': 'gpt-4o',
          'langfuse.observation.model.parameters': '{"temperature":0}',
          'langfuse.observation.input': JSON.stringify([
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'What is the capital of France?' },
          ]),
          'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Paris.' }),
          'langfuse.observation.usage_details': JSON.stringify({ input: 36, input_cached_tokens: 64, output: 4, output_reasoning_tokens: 8, total: 112 }),
          'langfuse.observation.cost_details': JSON.stringify({ input: 0.0002, output: 0.00012 }),
          'langfuse.environment': 'staging',
          'langfuse.release': 'v1.2.3',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'langfuse',
      model: 'gpt-4o',
      provider: 'openai',
      input: 'What is the capital of France?',
      output: 'Paris.',
      input_tokens: 100,
      cached_input_tokens: 64,
      output_tokens: 12,
      reasoning_tokens: 8,
      total_tokens: 112,
      cost_source: 'explicit',
      environment: 'staging',
    });
    expect(row.cost).toBeCloseTo(0.00032, 8);
    expect(JSON.parse(row.input_messages)[0]).toEqual({ role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] });
  });

  it('OpenAI-named usage keys are totals that include their cached part', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.model.name': 'gpt-4o',
          'langfuse.observation.usage_details': JSON.stringify({ prompt_tokens: 100, completion_tokens: 12, total_tokens: 112, cache_read_input_tokens: 64 }),
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({ input_tokens: 100, output_tokens: 12, cached_input_tokens: 64, cost_source: 'price_table' });
  });

  it('a trace root span: its trace input and output, session and user, and an ERROR level as an error', () => {
    const row = rowOf(
      makeSpan({
        name: 'support-request',
        attributes: {
          'langfuse.observation.type': 'span',
          'langfuse.trace.name': 'support-request',
          'langfuse.trace.input': JSON.stringify({ question: 'Where is my order?', orderId: 42 }),
          'langfuse.trace.output': 'It ships tomorrow.',
          'langfuse.trace.metadata.plan': 'pro',
          'session.id': 'sess-1',
          'user.id': 'user-1',
          'langfuse.observation.level': 'ERROR',
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'span',
      input: '{"question":"Where is my order?","orderId":42}',
      output: 'It ships tomorrow.',
      session_id: 'sess-1',
      user_id: 'user-1',
      status: 'error',
    });
    expect(row.attributes['langfuse.trace.metadata.plan']).toBe('pro');
  });

  it('agents, tools and retrievers by their observation type; older session and user keys', () => {
    const agent = rowOf(makeSpan({ name: 'planner', attributes: { 'langfuse.observation.type': 'agent', 'langfuse.session.id': 'sess-2', 'langfuse.user.id': 'user-2' } }), { scope });
    expect(agent).toMatchObject({ span_type: 'agent', agent_name: 'planner', session_id: 'sess-2', user_id: 'user-2' });
    const tool = rowOf(
      makeSpan({ name: 'get_weather', attributes: { 'langfuse.observation.type': 'tool', 'langfuse.observation.input': '{"city":"Paris"}', 'langfuse.observation.output': '"sunny"' } }),
      { scope },
    );
    expect(tool).toMatchObject({ span_type: 'tool', tool_name: 'get_weather', tool_arguments: '{"city":"Paris"}', output: 'sunny' });
    expect(rowOf(makeSpan({ attributes: { 'langfuse.observation.type': 'retriever' } }), { scope }).span_type).toBe('retrieval');
  });

  it('leaves a span marked `span` by another SDK to its own convention (Strands exporting to Langfuse)', () => {
    const row = rowOf(makeSpan({ attributes: { 'langfuse.observation.type': 'span', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Strands Agents' } }));
    expect(row).toMatchObject({ span_type: 'agent', platform: 'otel-genai', agent_name: 'Strands Agents' });
  });
});
