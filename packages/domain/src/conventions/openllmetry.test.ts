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
      input: '{"args":[],"kwargs":{"topic":"otters"}}',
      output: '"Why did the otter..."',
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
          'traceloop.entity.input': '{"query":"otters"}',
        },
      }),
    );
    expect(tool).toMatchObject({ span_type: 'tool', tool_name: 'search_web', input: '{"query":"otters"}' });
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
    expect(JSON.parse(row.input)).toEqual([
      { role: 'system', content: 'Tell jokes.' },
      { role: 'user', content: 'One about otters.' },
    ]);
    expect(JSON.parse(row.output)).toEqual([{ role: 'assistant', content: 'Why did the otter...', finish_reason: 'stop' }]);
    // gpt-4o: $2.50 input, $10 output per 1M: 50 * 2.5 + 20 * 10 = 125 + 200 = 325
    expect(row.cost).toBeCloseTo(325 / 1e6, 12);
  });

  it('maps embedding request types', () => {
    const row = rowOf(makeSpan({ attributes: { 'llm.request.type': 'embedding', 'gen_ai.request.model': 'text-embedding-3-large' } }));
    expect(row.span_type).toBe('embedding');
  });
});
