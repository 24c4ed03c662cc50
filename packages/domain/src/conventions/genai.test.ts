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

  it('keeps the messages and system instructions apart; input and output are what a person reads', () => {
    expect(row.input).toBe('Why is my invoice higher this month?');
    expect(row.output).toBe('Your plan renewed at the new rate.');
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: 'You are a billing assistant.' }]);
    expect(JSON.parse(row.input_messages)).toEqual(inputMessages);
    expect(JSON.parse(row.output_messages)).toEqual(outputMessages);
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
    // Sent in the stored shape already, the message lists are kept once, in their columns.
    expect(row.attribute_refs).toMatchObject({ 'gen_ai.input.messages': 'input_messages', 'gen_ai.output.messages': 'output_messages' });
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
    expect(old.input).toBe('hi');
    expect(JSON.parse(old.input_messages)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
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
    expect(row.input).toBe('Hello');
    expect(row.output).toBe('Hi!');
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Hello' }] },
    ]);
    expect(JSON.parse(row.output_messages)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Hi!' }], finish_reason: 'stop' }]);
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

  it('renders a model answer that is only tool calls as the calls', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_call' },
          ]),
        },
      }),
    );
    expect(row.input).toBe('Weather in Paris?');
    expect(row.output).toBe('get_weather({"city":"Paris"})');
  });

  it('reads the older flat gen_ai.prompt / gen_ai.completion, as text or as messages JSON', () => {
    const flat = rowOf(makeSpan({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.prompt': 'Tell me a joke', 'gen_ai.completion': 'Knock knock.' } }));
    expect(flat).toMatchObject({ input: 'Tell me a joke', output: 'Knock knock.' });
    expect(JSON.parse(flat.input_messages)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Tell me a joke' }] }]);
    const json = rowOf(
      makeSpan({ attributes: { 'gen_ai.prompt': JSON.stringify({ messages: [{ role: 'user', content: 'Hi there' }] }), 'gen_ai.completion': JSON.stringify({ text: 'Hello!' }) } }),
    );
    expect(json).toMatchObject({ input: 'Hi there', output: 'Hello!' });
  });

  it('normalizes provider names that carry an API suffix, and keeps the dotted semconv names', () => {
    expect(rowOf(makeSpan({ attributes: { 'gen_ai.system': 'openai.chat' } })).provider).toBe('openai');
    expect(rowOf(makeSpan({ attributes: { 'gen_ai.provider.name': 'anthropic.messages' } })).provider).toBe('anthropic');
    expect(rowOf(makeSpan({ attributes: { 'gen_ai.provider.name': 'aws.bedrock' } })).provider).toBe('aws.bedrock');
    expect(rowOf(makeSpan({ attributes: { 'gen_ai.provider.name': 'gcp.vertex_ai' } })).provider).toBe('gcp.vertex_ai');
  });

  it('maps the operations of semantic-conventions-genai: workflows are agent runs, memory searches retrieve', () => {
    const typeOf = (operation: string) => rowOf(makeSpan({ attributes: { 'gen_ai.operation.name': operation } })).span_type;
    expect(['invoke_workflow', 'invoke_agent', 'search_memory', 'retrieval', 'generate_content', 'plan'].map(typeOf)).toEqual([
      'agent',
      'agent',
      'retrieval',
      'retrieval',
      'llm',
      'chain',
    ]);
  });

  it('unquotes a tool result recorded as a JSON string, and marks a call that finished with error as failed', () => {
    const tool = rowOf(
      makeSpan({
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.arguments': '{"city":"Paris"}',
          'gen_ai.tool.call.result': '"rainy, 14°C"',
        },
      }),
    );
    expect(tool).toMatchObject({ input: '{"city":"Paris"}', output: 'rainy, 14°C', tool_arguments: '{"city":"Paris"}' });
    const failed = rowOf(makeSpan({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': '["error"]' } }));
    expect(failed.status).toBe('error');
    const ok = rowOf(makeSpan({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['stop'] } }));
    expect(ok.status).toBe('unset');
  });

  it('stores media as references: an inline image is its MIME type and size, never its bytes', () => {
    const image = Buffer.alloc(3000, 1).toString('base64');
    const row = rowOf(
      makeSpan({
        attributes: {
          'gen_ai.operation.name': 'chat',
          // As the Vercel AI SDK 7 writes it: null ids and MIME types, the image inline.
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'What is this?' }, { type: 'blob', modality: 'image', mime_type: 'image/png', content: image }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: null, name: 'describe', arguments: {} }], finish_reason: 'tool-calls' },
          ]),
        },
      }),
    );
    expect(JSON.parse(row.input_messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is this?' }, { type: 'blob', modality: 'image', mime_type: 'image/png', size: 3000 }] },
    ]);
    expect(row.input_messages).not.toContain(image.slice(0, 100));
    expect(row.output).toBe('describe({})');
    // The attribute itself stays as sent.
    expect(row.attributes['gen_ai.input.messages']).toContain(image);
  });
});
