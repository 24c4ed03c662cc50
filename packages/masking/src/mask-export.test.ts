import { spanRowsFromExport, loadPriceTable } from '@aos/domain';
import type { Attributes, OtlpSpan, OtlpTraceExport } from '@aos/otlp';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.ts';
import { maskExport } from './mask-export.ts';
import { parsePolicy } from './policy.ts';

const compile = (rules: unknown[]) => compilePolicy(parsePolicy({ rules }), { hashKey: 'k' });

function span(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: '',
    traceState: '',
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: '1735689600000000000',
    endTimeUnixNano: '1735689601000000000',
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    status: { code: 0, message: '' },
    ...overrides,
  };
}

function exportOf(spans: OtlpSpan[], resource: Attributes = { 'service.name': 'agent' }): OtlpTraceExport {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 's', version: '1' }, spans }] }] };
}

const EMAIL = 'jane@example.com';

describe('maskExport', () => {
  it('masks input and output attributes in place and reports the rules that fired', () => {
    const s = span({
      attributes: {
        'input.value': `write to ${EMAIL}`,
        'output.value': `sent to ${EMAIL}`,
        'gen_ai.request.model': 'gpt-4o',
        'llm.token_count.prompt': 12,
      },
    });
    const batch = exportOf([s]);
    const report = maskExport(batch, compile([{ name: 'emails', detector: 'email' }]));
    expect(s.attributes).toEqual({
      'input.value': 'write to [EMAIL]',
      'output.value': 'sent to [EMAIL]',
      'gen_ai.request.model': 'gpt-4o',
      'llm.token_count.prompt': 12,
    });
    expect(report).toEqual({
      spans: [{ span: s, position: 0, rules: ['emails'], outputRules: ['emails'], matches: 2 }],
      ruleMatches: { emails: 2 },
      matches: 2,
    });
  });

  it('selects values by field: input, output, attribute globs, events, status message', () => {
    const s = span({
      attributes: {
        'gen_ai.input.messages': `[{"role":"user","content":"I am ${EMAIL}"}]`,
        'gen_ai.completion.0.content': `Hello ${EMAIL}`,
        'user.email': EMAIL,
        'app.note': EMAIL,
      },
      events: [
        { timeUnixNano: '1735689600500000000', name: 'exception', attributes: { 'exception.message': `no user ${EMAIL}` } },
      ],
      status: { code: 2, message: `failed for ${EMAIL}` },
    });
    const policy = compile([
      { name: 'in', detector: 'email', fields: { input: true } },
      { name: 'out', detector: 'email', fields: { output: true } },
      { name: 'users', detector: 'email', fields: { attributes: ['user.*'] } },
      { name: 'ev', detector: 'email', fields: { events: true } },
      { name: 'st', detector: 'email', fields: { statusMessage: true } },
    ]);
    const report = maskExport(exportOf([s]), policy);
    expect(s.attributes).toEqual({
      'gen_ai.input.messages': '[{"role":"user","content":"I am [EMAIL]"}]',
      'gen_ai.completion.0.content': 'Hello [EMAIL]',
      'user.email': '[EMAIL]',
      'app.note': EMAIL, // no rule covers it
    });
    expect(s.events[0]!.attributes['exception.message']).toBe('no user [EMAIL]');
    expect(s.status.message).toBe('failed for [EMAIL]');
    expect(report.spans[0]!.rules).toEqual(['ev', 'in', 'out', 'st', 'users']);
    expect(report.spans[0]!.outputRules).toEqual(['out']);
    expect(report.ruleMatches).toEqual({ in: 1, out: 1, users: 1, ev: 1, st: 1 });
  });

  it('masks strings inside arrays and key-value lists, leaving other values alone', () => {
    const s = span({
      attributes: {
        'app.recipients': [EMAIL, 'nobody', 42, true, null],
        'app.payload': { to: EMAIL, nested: { cc: [EMAIL], count: 3 }, ok: false },
      },
    });
    maskExport(exportOf([s]), compile([{ name: 'e', detector: 'email' }]));
    expect(s.attributes).toEqual({
      'app.recipients': ['[EMAIL]', 'nobody', 42, true, null],
      'app.payload': { to: '[EMAIL]', nested: { cc: ['[EMAIL]'], count: 3 }, ok: false },
    });
  });

  it('masks resource and link attributes by glob and counts resource hits on each span', () => {
    const a = span({ spanId: '1111111111111111', links: [{ traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), traceState: '', attributes: { 'peer.email': EMAIL } }] });
    const b = span({ spanId: '2222222222222222' });
    const batch = exportOf([a, b], { 'service.name': 'agent', 'host.ip': '10.1.2.3' });
    const report = maskExport(batch, compile([
      { name: 'ips', detector: 'ip_address', fields: { attributes: ['host.*'] } },
      { name: 'emails', detector: 'email', fields: { attributes: ['*'] } },
    ]));
    expect(batch.resourceSpans[0]!.resource.attributes['host.ip']).toBe('[IP_ADDRESS]');
    expect(a.links[0]!.attributes['peer.email']).toBe('[EMAIL]');
    expect(report.spans.map((m) => [m.position, m.span.spanId, m.rules, m.matches])).toEqual([
      [0, '1111111111111111', ['emails', 'ips'], 1],
      [1, '2222222222222222', ['ips'], 0],
    ]);
    expect(report.matches).toBe(2);
  });

  it('treats GenAI message events and indexed message keys as input and output', () => {
    const s = span({
      events: [
        { timeUnixNano: '1', name: 'gen_ai.user.message', attributes: { content: `from ${EMAIL}` } },
        { timeUnixNano: '2', name: 'gen_ai.choice', attributes: { message: `to ${EMAIL}` } },
        { timeUnixNano: '3', name: 'log', attributes: { text: EMAIL } },
      ],
      attributes: {
        'llm.input_messages.0.message.content': EMAIL,
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': `{"to":"${EMAIL}"}`,
      },
    });
    const report = maskExport(exportOf([s]), compile([
      { name: 'in', detector: 'email', fields: { input: true } },
      { name: 'out', detector: 'email', fields: { output: true } },
    ]));
    expect(s.events.map((e) => Object.values(e.attributes)[0])).toEqual(['from [EMAIL]', 'to [EMAIL]', EMAIL]);
    expect(Object.values(s.attributes)).toEqual(['[EMAIL]', '{"to":"[EMAIL]"}']);
    expect(report.spans[0]!.outputRules).toEqual(['out']);
  });

  it('returns at once for an empty policy and reports nothing when no rule fires', () => {
    const s = span({ attributes: { 'input.value': EMAIL } });
    expect(maskExport(exportOf([s]), compile([]))).toEqual({ spans: [], ruleMatches: {}, matches: 0 });
    expect(maskExport(exportOf([span({ attributes: { 'input.value': 'hi' } })]), compile([{ name: 'e', detector: 'email' }]))).toEqual({
      spans: [],
      ruleMatches: {},
      matches: 0,
    });
  });
});

describe('no raw value covered by an input/output rule reaches a stored column', () => {
  // One span per convention the normalizer reads input/output from (attributes and events).
  const conventionSpans = (): OtlpSpan[] => [
    span({ attributes: { 'openinference.span.kind': 'LLM', 'input.value': EMAIL, 'output.value': EMAIL } }),
    span({
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': EMAIL,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': EMAIL,
      },
    }),
    span({ attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'send', 'input.value': `{"to":"${EMAIL}"}`, 'tool_call.function.arguments': EMAIL } }),
    span({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': EMAIL, 'gen_ai.system_instructions': EMAIL, 'gen_ai.output.messages': EMAIL } }),
    span({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': EMAIL, 'gen_ai.completion.0.content': EMAIL } }),
    span({ attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': EMAIL, 'gen_ai.tool.call.result': EMAIL } }),
    span({ attributes: { 'traceloop.span.kind': 'task', 'traceloop.entity.input': EMAIL, 'traceloop.entity.output': EMAIL } }),
    span({ attributes: { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.prompt.messages': EMAIL, 'ai.response.text': EMAIL, 'ai.response.toolCalls': `[{"a":"${EMAIL}"}]` } }),
    span({ attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.args': EMAIL, 'ai.toolCall.result': EMAIL } }),
    span({ attributes: { 'ai.operationId': 'ai.embed', 'ai.value': EMAIL } }),
    span({ attributes: { 'openinference.span.kind': 'EMBEDDING', 'embedding.embeddings.0.embedding.text': EMAIL } }),
    span({ attributes: { 'mastra.span.type': 'agent_run', 'mastra.agent_run.input': `[{"role":"user","content":"${EMAIL}"}]`, 'mastra.agent_run.output': `{"text":"${EMAIL}"}` } }),
    span({ attributes: { 'mastra.span.type': 'llm_generation', input: `{"messages":[{"role":"user","content":"${EMAIL}"}]}`, output: `{"text":"${EMAIL}"}` } }),
    span({ attributes: { 'mastra.span.type': 'tool_call', 'gen_ai.tool.input': EMAIL, 'gen_ai.tool.output': EMAIL } }),
    span({
      attributes: {
        'pydantic_ai.all_messages': `[{"role":"user","parts":[{"type":"text","content":"${EMAIL}"}]},{"role":"assistant","parts":[{"type":"text","content":"${EMAIL}"}]}]`,
        final_result: EMAIL,
      },
    }),
    span({ attributes: { 'gen_ai.tool.name': 'send', tool_arguments: `{"to":"${EMAIL}"}`, tool_response: EMAIL } }),
    span({
      attributes: {
        'gcp.vertex.agent.llm_request': `{"contents":[{"role":"user","parts":[{"text":"${EMAIL}"}]}]}`,
        'gcp.vertex.agent.llm_response': `{"content":{"role":"model","parts":[{"text":"${EMAIL}"}]}}`,
      },
    }),
    span({ attributes: { 'gcp.vertex.agent.tool_call_args': `{"to":"${EMAIL}"}`, 'gcp.vertex.agent.tool_response': EMAIL } }),
    span({
      name: 'llm_node',
      attributes: {
        'lk.chat_ctx': `{"items":[{"type":"message","role":"user","content":["${EMAIL}"]}]}`,
        'lk.response.text': EMAIL,
        'lk.response.function_calls': `[{"call_id":"c1","name":"send","arguments":"{\\"to\\":\\"${EMAIL}\\"}"}]`,
      },
    }),
    span({ attributes: { 'lk.function_tool.name': 'send', 'lk.function_tool.arguments': `{"to":"${EMAIL}"}`, 'lk.function_tool.output': EMAIL } }),
    span({ attributes: { 'lk.user_input': EMAIL } }),
    span({
      attributes: {
        'genkit:type': 'action',
        'genkit:metadata:subtype': 'model',
        'genkit:input': `{"messages":[{"role":"user","content":[{"text":"${EMAIL}"}]}]}`,
        'genkit:output': `{"message":{"role":"model","content":[{"text":"${EMAIL}"}]}}`,
      },
    }),
    span({ attributes: { 'mlflow.spanType': '"TOOL"', 'mlflow.spanInputs': `{"to":"${EMAIL}"}`, 'mlflow.spanOutputs': `"${EMAIL}"` } }),
    span({ attributes: { 'mlflow.spanType': '"CHAT_MODEL"', 'mlflow.chat.messages': `[{"role":"user","content":"${EMAIL}"},{"role":"assistant","content":"${EMAIL}"}]` } }),
    span({
      attributes: { 'gen_ai.operation.name': 'chat' },
      events: [
        { timeUnixNano: '1', name: 'gen_ai.user.message', attributes: { content: EMAIL } },
        { timeUnixNano: '2', name: 'gen_ai.choice', attributes: { message: EMAIL } },
      ],
    }),
    span({
      attributes: { 'gen_ai.operation.name': 'chat' },
      events: [
        { timeUnixNano: '1', name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': EMAIL } },
        { timeUnixNano: '2', name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': EMAIL } },
      ],
    }),
    span({
      attributes: { 'gen_ai.operation.name': 'chat' },
      events: [{ timeUnixNano: '1', name: 'gen_ai.client.inference.operation.details', attributes: { 'gen_ai.input.messages': EMAIL, 'gen_ai.output.messages': EMAIL } }],
    }),
  ];

  it('holds for every convention (checked on the normalized rows)', () => {
    const spans = conventionSpans();
    const batch = exportOf(spans);
    const report = maskExport(batch, compile([{ name: 'in', detector: 'email', fields: { input: true, output: true } }]));
    expect(report.spans).toHaveLength(spans.length);
    const rows = spanRowsFromExport(batch, { projectId: 'p', receivedAtMs: 1735689602000, prices: loadPriceTable(), maxValueBytes: 65536 });
    rows.forEach((row, i) => {
      expect(row.input + row.output, `span ${i}`).not.toBe('');
      expect(JSON.stringify(row), `span ${i}`).not.toContain(EMAIL);
    });
  });
});
