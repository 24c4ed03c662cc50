import { describe, expect, it } from 'vitest';
import { makeSpan, nsAfterStart, rowOf } from '../test-fixtures.ts';

const scope = { name: 'ai', version: '' };
const telemetry = {
  'ai.telemetry.functionId': 'support-bot',
  'ai.telemetry.metadata.sessionId': 'sess-9',
  'ai.telemetry.metadata.userId': 'user-3',
};

describe('Vercel AI SDK', () => {
  it('maps a v4 doGenerate span with text and tool calls', () => {
    const toolCalls = [{ toolCallType: 'function', toolCallId: 'call_1', toolName: 'lookupOrder', args: '{"id":"A1"}' }];
    const row = rowOf(
      makeSpan({
        name: 'ai.generateText.doGenerate',
        kind: 3,
        attributes: {
          'operation.name': 'ai.generateText.doGenerate support-bot',
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.model.id': 'gpt-4o-mini',
          'ai.model.provider': 'openai.chat',
          'ai.response.model': 'gpt-4o-mini-2024-07-18',
          'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"Where is order A1?"}]}]',
          'ai.response.text': 'Let me check.',
          'ai.response.toolCalls': JSON.stringify(toolCalls),
          'ai.response.finishReason': 'tool-calls',
          'ai.usage.promptTokens': 1000,
          'ai.usage.completionTokens': 200,
          'gen_ai.system': 'openai.chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'gen_ai.usage.input_tokens': 1000,
          'gen_ai.usage.output_tokens': 200,
          ...telemetry,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      platform: 'vercel-ai',
      model: 'gpt-4o-mini-2024-07-18',
      provider: 'openai',
      input_tokens: 1000,
      output_tokens: 200,
      total_tokens: 1200,
      session_id: 'sess-9',
      user_id: 'user-3',
      agent_name: 'support-bot',
      input: 'Where is order A1?',
      output: 'Let me check.',
      time_to_first_token_ms: null,
    });
    expect(JSON.parse(row.output_messages)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me check.' },
          { type: 'tool_call', name: 'lookupOrder', id: 'call_1', arguments: { id: 'A1' } },
        ],
        finish_reason: 'tool-calls',
      },
    ]);
    // gpt-4o-mini: $0.15 input, $0.60 output per 1M: 1000 * 0.15 + 200 * 0.60 = 150 + 120 = 270
    expect(row.cost).toBeCloseTo(270 / 1e6, 12);
  });

  it('maps a v5 doStream span: usage details and time to first chunk', () => {
    const row = rowOf(
      makeSpan({
        name: 'ai.streamText.doStream',
        attributes: {
          'ai.operationId': 'ai.streamText.doStream',
          'ai.model.id': 'claude-sonnet-4-20250514',
          'ai.model.provider': 'anthropic.messages',
          'ai.usage.inputTokens': 3000,
          'ai.usage.outputTokens': 800,
          'ai.usage.totalTokens': 3800,
          'ai.usage.reasoningTokens': 300,
          'ai.usage.cachedInputTokens': 2000,
          'ai.response.text': 'Done.',
          'ai.response.msToFirstChunk': 412.5,
        },
        // The attribute is the SDK's own measurement and wins over the event time.
        events: [{ name: 'ai.stream.firstChunk', timeUnixNano: nsAfterStart(415), attributes: {} }],
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'llm',
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      input_tokens: 3000,
      cached_input_tokens: 2000,
      output_tokens: 800,
      reasoning_tokens: 300,
      total_tokens: 3800,
      output: 'Done.',
      time_to_first_token_ms: 412.5,
    });
    // claude-sonnet-4: $3 input, $0.30 cache read, $15 output (reasoning as output) per 1M.
    // (3000 - 2000) * 3 + 2000 * 0.30 + (800 - 300) * 15 + 300 * 15 = 3000 + 600 + 7500 + 4500 = 15600
    expect(row.cost).toBeCloseTo(15600 / 1e6, 12);
  });

  it('maps a toolCall span (v4 args/result and v5 input/output names)', () => {
    for (const [argsKey, resultKey] of [
      ['ai.toolCall.args', 'ai.toolCall.result'],
      ['ai.toolCall.input', 'ai.toolCall.output'],
    ] as const) {
      const row = rowOf(
        makeSpan({
          name: 'ai.toolCall',
          attributes: {
            'ai.operationId': 'ai.toolCall',
            'ai.toolCall.name': 'lookupOrder',
            'ai.toolCall.id': 'call_1',
            [argsKey]: '{"id":"A1"}',
            [resultKey]: '{"status":"shipped"}',
            ...telemetry,
          },
        }),
        { scope },
      );
      expect(row).toMatchObject({
        span_type: 'tool',
        tool_name: 'lookupOrder',
        tool_call_id: 'call_1',
        tool_arguments: '{"id":"A1"}',
        input: '{"id":"A1"}',
        output: '{"status":"shipped"}',
        session_id: 'sess-9',
      });
    }
  });

  it('treats the top-level calls as chains and provider embed calls as embeddings', () => {
    const top = rowOf(
      makeSpan({
        attributes: {
          'ai.operationId': 'ai.generateText',
          'ai.model.id': 'gpt-4o',
          'ai.prompt': '{"prompt":"hi"}',
          'ai.response.text': 'hello',
          'ai.usage.promptTokens': 10,
          'ai.usage.completionTokens': 5,
        },
      }),
    );
    expect(top.span_type).toBe('chain');
    expect(top.input).toBe('hi');
    expect(top.quality_flags).not.toContain('missing_token_counts');

    const embed = rowOf(
      makeSpan({
        attributes: {
          'ai.operationId': 'ai.embed.doEmbed',
          'ai.model.id': 'text-embedding-3-small',
          'ai.values': ['"hello"'],
          'ai.embeddings': ['[0.1,0.2]'],
          'ai.usage.tokens': 5000,
        },
      }),
    );
    expect(embed).toMatchObject({ span_type: 'embedding', input_tokens: 5000, total_tokens: 5000, input: 'hello', output: '' });
    // text-embedding-3-small: $0.02 per 1M input tokens: 5000 * 0.02 = 100
    expect(embed.cost).toBeCloseTo(100 / 1e6, 12);
  });

  it('maps a v5/v6 generateText call: system apart, the last user turn as input, tool calls as output', () => {
    const row = rowOf(
      makeSpan({
        name: 'ai.generateText',
        attributes: {
          'ai.operationId': 'ai.generateText',
          'ai.model.id': 'claude-sonnet-4-20250514',
          'ai.model.provider': 'anthropic.messages',
          'ai.prompt': JSON.stringify({
            system: 'You track parcels.',
            messages: [
              { role: 'user', content: 'Where is A1?' },
              { role: 'assistant', content: [{ type: 'text', text: 'Which carrier?' }] },
              { role: 'user', content: [{ type: 'text', text: 'DHL' }] },
            ],
          }),
          'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'toolu_1', toolName: 'track', input: { carrier: 'DHL', id: 'A1' } }]),
          'ai.response.finishReason': 'tool-calls',
          // v6 usage details
          'ai.usage.inputTokens': 2500,
          'ai.usage.outputTokens': 120,
          'ai.usage.totalTokens': 2620,
          'ai.usage.inputTokenDetails.noCacheTokens': 500,
          'ai.usage.inputTokenDetails.cacheReadTokens': 1800,
          'ai.usage.inputTokenDetails.cacheWriteTokens': 200,
          'ai.usage.outputTokenDetails.textTokens': 80,
          'ai.usage.outputTokenDetails.reasoningTokens': 40,
        },
      }),
      { scope },
    );
    expect(row).toMatchObject({
      span_type: 'chain',
      input: 'DHL',
      output: 'track({"carrier":"DHL","id":"A1"})',
      cached_input_tokens: 1800,
      reasoning_tokens: 40,
      input_tokens: 2500,
      output_tokens: 120,
    });
    expect(JSON.parse(row.system_instructions)).toEqual([{ type: 'text', content: 'You track parcels.' }]);
    expect(JSON.parse(row.input_messages)).toHaveLength(3);
  });

  it('keeps reasoning in the messages and the answer text as the output; an object answer as its JSON', () => {
    const reasoning = rowOf(
      makeSpan({
        attributes: {
          'ai.operationId': 'ai.streamText.doStream',
          'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: '2+2?' }] }]),
          'ai.response.reasoning': 'Add the numbers.',
          'ai.response.text': '4',
        },
      }),
    );
    expect(reasoning.output).toBe('4');
    expect(JSON.parse(reasoning.output_messages)[0].parts).toEqual([
      { type: 'reasoning', content: 'Add the numbers.' },
      { type: 'text', content: '4' },
    ]);
    const object = rowOf(makeSpan({ attributes: { 'ai.operationId': 'ai.generateObject', 'ai.prompt': '{"prompt":"A recipe"}', 'ai.response.object': '{"name":"Soup"}' } }));
    expect(object).toMatchObject({ input: 'A recipe', output: '{"name":"Soup"}' });
  });

  it('reads cache tokens from provider metadata when the usage has none (Anthropic, Bedrock)', () => {
    const anthropic = rowOf(
      makeSpan({
        attributes: {
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.model.id': 'claude-3-5-haiku-20241022',
          'ai.usage.promptTokens': 3000,
          'ai.usage.completionTokens': 100,
          'ai.response.providerMetadata': JSON.stringify({ anthropic: { cacheCreationInputTokens: 500, usage: { cache_read_input_tokens: 2000 } } }),
        },
      }),
    );
    expect(anthropic).toMatchObject({ cached_input_tokens: 2000 });
    const bedrock = rowOf(
      makeSpan({
        attributes: {
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.usage.inputTokens': 1000,
          'ai.usage.outputTokens': 10,
          'ai.response.providerMetadata': JSON.stringify({ bedrock: { usage: { cacheReadInputTokens: 600, cacheWriteInputTokens: 0 } } }),
        },
      }),
    );
    expect(bedrock.cached_input_tokens).toBe(600);
  });

  it('recognises spans by the scope `ai`, and reads session and user from the v7 runtime context', () => {
    const byScope = rowOf(makeSpan({ name: 'ai.toolCall', attributes: { 'ai.toolCall.name': 'search', 'ai.toolCall.args': '{"q":"x"}' } }), { scope });
    expect(byScope).toMatchObject({ span_type: 'tool', platform: 'vercel-ai', tool_name: 'search', input: '{"q":"x"}' });
    // AI SDK 7's OpenTelemetry integration: GenAI semconv under scope gen_ai, runtime context as ai.settings.context.*.
    const v7 = rowOf(
      makeSpan({
        name: 'chat gpt-4o',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }], finish_reason: 'stop' }]),
          'gen_ai.client.operation.time_to_first_chunk': 0.25,
          'ai.settings.context.sessionId': 'sess-v7',
          'ai.settings.context.userId': 'user-v7',
        },
      }),
      { scope: { name: 'gen_ai', version: '' } },
    );
    expect(v7).toMatchObject({ span_type: 'llm', input: 'Hi', output: 'Hello!', session_id: 'sess-v7', user_id: 'user-v7', time_to_first_token_ms: 250 });
  });

  it('reads v7’s reasoning and cache-write token details beside its GenAI semconv usage', () => {
    // As @ai-sdk/otel 1.0 writes them (its supplemental usage attributes); it needs Node.js 22.
    const row = rowOf(
      makeSpan({
        name: 'chat gpt-5',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-5',
          'gen_ai.usage.input_tokens': 200,
          'gen_ai.usage.output_tokens': 50,
          'gen_ai.usage.cache_read.input_tokens': 64,
          'ai.usage.inputTokenDetails.noCacheTokens': 120,
          'ai.usage.inputTokenDetails.cacheWriteTokens': 16,
          'ai.usage.outputTokenDetails.textTokens': 42,
          'ai.usage.outputTokenDetails.reasoningTokens': 8,
        },
      }),
      { scope: { name: 'gen_ai', version: '' } },
    );
    expect(row).toMatchObject({ input_tokens: 200, output_tokens: 50, cached_input_tokens: 64, reasoning_tokens: 8 });
  });
});
