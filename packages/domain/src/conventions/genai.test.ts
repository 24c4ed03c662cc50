import { describe, expect, it } from 'vitest';
import { makeSpan, nsAfterStart, rowOf } from '../test-fixtures.ts';
import { restoreAttributes } from '../promoted-attributes.ts';

const START_LATER = nsAfterStart(10);

const inputMessages = [{ role: 'user', parts: [{ type: 'text', content: 'Why is my invoice higher this month?' }] }];
const outputMessages = [
  { role: 'assistant', parts: [{ type: 'text', content: 'Your plan renewed at the new rate.' }], finish_reason: 'stop' },
];

/** A chat span as emitted by a current GenAI-semconv instrumentation of the OpenAI client. */
const chatSpan = makeSpan({
  name: 'chat o4-mini',
  kind: 3,
  status: { code: 1, message: '' },
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'o4-mini',
    'gen_ai.response.model': 'o4-mini-2025-04-16',
    'gen_ai.response.id': 'chatcmpl-123',
    'gen_ai.response.finish_reasons': ['stop'],
    'gen_ai.request.max_tokens': 1024,
    'gen_ai.request.temperature': 1,
    'gen_ai.usage.input_tokens': 1200,
    'gen_ai.usage.output_tokens': 300,
    'gen_ai.usage.cache_read.input_tokens': 1000,
    'gen_ai.usage.output_tokens.reasoning': 200,
    'gen_ai.conversation.id': 'conv-42',
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are a billing assistant.' }]),
    'gen_ai.input.messages': JSON.stringify(inputMessages),
    'gen_ai.output.messages': JSON.stringify(outputMessages),
    'server.address': 'api.openai.com',
    'server.port': 443,
  },
});

describe('OpenTelemetry GenAI semconv', () => {
  const row = rowOf(chatSpan);

  it('maps the chat span onto the first-class fields', () => {
    expect(row.span_type).toBe('llm');
    expect(row.platform).toBe('otel-genai');
    expect(row.kind).toBe('client');
    expect(row.status).toBe('ok');
    expect(row.provider).toBe('openai');
    expect(row.model).toBe('o4-mini-2025-04-16'); // response model wins over request model
    expect(row.session_id).toBe('conv-42');
  });

  it('keeps cached and reasoning tokens inside input and output and separately', () => {
    expect(row.input_tokens).toBe(1200);
    expect(row.cached_input_tokens).toBe(1000);
    expect(row.output_tokens).toBe(300);
    expect(row.reasoning_tokens).toBe(200);
    expect(row.total_tokens).toBe(1500);
    expect(row.quality_flags).toEqual([]);
  });

  it('prices the response model with cache and reasoning rates', () => {
    // o4-mini: input $1.10, cached input $0.275, output $4.40 per 1M; reasoning billed as output.
    // (1200 - 1000) * 1.10 + 1000 * 0.275 + (300 - 200) * 4.40 + 200 * 4.40
    //   = 220 + 275 + 440 + 880 = 1815 per 1M tokens
    expect(row.cost_source).toBe('price_table');
    expect(row.cost).toBeCloseTo(1815 / 1e6, 12);
  });

  it('prepends the system instructions to the input messages as a system message', () => {
    const input = JSON.parse(row.input) as unknown[];
    expect(input).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You are a billing assistant.' }] },
      ...inputMessages,
    ]);
    expect(JSON.parse(row.output)).toEqual(outputMessages);
  });

  it('keeps every attribute as a string, non-strings JSON-encoded', () => {
    expect(row.attributes['gen_ai.usage.input_tokens']).toBe('1200');
    expect(row.attributes['gen_ai.response.finish_reasons']).toBe('["stop"]');
    expect(row.attributes['server.address']).toBe('api.openai.com');
    // Attributes whose value became the input or output are kept once, as references.
    const restored = restoreAttributes(row.attributes, row.attribute_refs, row);
    expect(Object.keys(restored)).toHaveLength(Object.keys(chatSpan.attributes).length);
    expect(Object.keys(row.attribute_refs).length).toBeGreaterThan(0);
    for (const [key, column] of Object.entries(row.attribute_refs)) {
      expect(row.attributes[key]).toBeUndefined();
      expect(restored[key]).toBe(row[column]);
    }
  });

  it('reads the older prompt/completion token names and structured message values', () => {
    const old = rowOf(
      makeSpan({
        attributes: {
          'gen_ai.system': 'Anthropic',
          'gen_ai.request.model': 'claude-3-haiku-20240307',
          'gen_ai.usage.prompt_tokens': 40,
          'gen_ai.usage.completion_tokens': 10,
          'gen_ai.input.messages': [{ role: 'user', content: 'hi' }],
        },
      }),
    );
    expect(old.span_type).toBe('llm'); // model + tokens, no operation name
    expect(old.provider).toBe('anthropic');
    expect(old.input_tokens).toBe(40);
    expect(old.output_tokens).toBe(10);
    expect(JSON.parse(old.input)).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('maps tool and agent operations', () => {
    const tool = rowOf(
      makeSpan({
        name: 'execute_tool lookup_invoice',
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup_invoice',
          'gen_ai.tool.call.id': 'call_abc',
          'gen_ai.tool.call.arguments': '{"invoice":"INV-7"}',
          'gen_ai.tool.call.result': '{"amount":42}',
        },
      }),
    );
    expect(tool).toMatchObject({
      span_type: 'tool',
      tool_name: 'lookup_invoice',
      tool_call_id: 'call_abc',
      tool_arguments: '{"invoice":"INV-7"}',
      input: '{"invoice":"INV-7"}',
      output: '{"amount":42}',
    });
    const agent = rowOf(
      makeSpan({ attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Billing Agent' } }),
    );
    expect(agent.span_type).toBe('agent');
    expect(agent.agent_name).toBe('Billing Agent');
    const embedding = rowOf(makeSpan({ attributes: { 'gen_ai.operation.name': 'embeddings' } }));
    expect(embedding.span_type).toBe('embedding');
  });

  it('falls back to GenAI events for input and output', () => {
    const row = rowOf(
      makeSpan({
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        events: [
          { name: 'gen_ai.system.message', timeUnixNano: nsAfterStart(1), attributes: { content: 'Be brief.' } },
          { name: 'gen_ai.user.message', timeUnixNano: nsAfterStart(1), attributes: { content: 'Hello' } },
          {
            name: 'gen_ai.choice',
            timeUnixNano: nsAfterStart(900),
            attributes: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi!' } },
          },
        ],
      }),
    );
    expect(JSON.parse(row.input)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
    expect(JSON.parse(row.output)).toEqual([
      { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi!' } },
    ]);
  });

  it('uses the old content events when nothing else carries the text', () => {
    const row = rowOf(
      makeSpan({
        attributes: { 'gen_ai.system': 'openai' },
        events: [
          { name: 'gen_ai.content.prompt', timeUnixNano: START_LATER, attributes: { 'gen_ai.prompt': 'Say hi' } },
          { name: 'gen_ai.content.completion', timeUnixNano: START_LATER, attributes: { 'gen_ai.completion': 'hi' } },
        ],
      }),
    );
    expect(row.input).toBe('Say hi');
    expect(row.output).toBe('hi');
  });
});
