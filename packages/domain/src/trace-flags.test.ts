import { describe, expect, it } from 'vitest';
import type { Attributes, OtlpSpan } from '@aos/otlp';
import { spanRowsFromExport } from './normalize.ts';
import { makeContext, makeExport, makeSpan, nsAfterStart } from './test-fixtures.ts';
import {
  DEFAULT_TRACE_FLAG_RULES as RULES,
  canonicalArguments,
  computeTraceFlags,
  findLoop,
  isEmptyOutput,
  type TraceStep,
} from './trace-flags.ts';

let clock = 1_000;
/** A span starting after the previous one; the first made in a test is the root unless a parent is given. */
function span(partial: Partial<TraceStep> = {}): TraceStep {
  clock += 1;
  return {
    spanId: `s${clock}`,
    name: 'step',
    parentSpanId: 'root',
    spanType: 'span',
    toolName: '',
    toolArguments: '',
    output: 'something',
    outputTokens: 0,
    status: 'ok',
    startNs: String(clock * 1_000_000),
    ...partial,
  };
}
const root = (partial: Partial<TraceStep> = {}) => span({ spanId: 'root', name: 'root', parentSpanId: '', ...partial });
const tool = (name: string, args: string, partial: Partial<TraceStep> = {}) =>
  span({ name: `execute_tool ${name}`, spanType: 'tool', toolName: name, toolArguments: args, ...partial });
const flagsOf = (spans: TraceStep[], cost = 0, stats: { median: number; mad: number } | null = null, rules = RULES) =>
  computeTraceFlags(spans, cost, stats, rules).flags;

describe('computeTraceFlags', () => {
  it('raises nothing on a plain trace', () => {
    const result = computeTraceFlags([root(), tool('search', '{"q":"a"}'), tool('read', '{"id":1}'), span({ name: 'answer' })], 0.01, { median: 0.01, mad: 0.002 }, RULES);
    expect(result).toEqual({ flags: [], details: {} });
  });

  describe('duplicate_tools', () => {
    it('fires when a tool is called twice with the same arguments', () => {
      const result = computeTraceFlags([root(), tool('search', '{"q":"a"}'), tool('search', '{"q":"a"}')], 0, null, RULES);
      expect(result.flags).toEqual(['duplicate_tools']);
      expect(result.details.duplicate_tools).toContain('search called 2 times');
    });
    it('compares JSON arguments by meaning', () => {
      expect(flagsOf([root(), tool('search', '{"q":"a","n":1}'), tool('search', ' { "n": 1, "q": "a" } ')])).toEqual(['duplicate_tools']);
      expect(canonicalArguments('{"b":[{"y":1,"x":2}],"a":null}')).toBe('{"a":null,"b":[{"x":2,"y":1}]}');
      expect(canonicalArguments('not json')).toBe('not json');
      expect(canonicalArguments('  ')).toBe('');
      expect(canonicalArguments(' 1.50 ')).toBe('1.5');
      expect(canonicalArguments('-2e1')).toBe('-20');
      expect(canonicalArguments(' "a" ')).toBe('"a"');
      expect(canonicalArguments('nothing')).toBe('nothing');
      expect(canonicalArguments('[2, 1]')).toBe('[2,1]');
    });
    it('does not fire for different arguments or different tools', () => {
      expect(flagsOf([root(), tool('search', '{"q":"a"}'), tool('search', '{"q":"b"}'), tool('read', '{"q":"a"}')])).toEqual([]);
    });
    it('honours the threshold', () => {
      const spans = [root(), tool('search', 'x'), span({ name: 'think' }), tool('search', 'x')];
      expect(flagsOf(spans, 0, null, { ...RULES, duplicateToolMin: 3 })).toEqual([]);
      expect(flagsOf([...spans, tool('search', 'x')], 0, null, { ...RULES, duplicateToolMin: 3 })).toEqual(['duplicate_tools']);
    });
  });

  describe('loop', () => {
    const named = (...names: string[]) => names.map((name) => span({ name }));
    it('finds a two-step cycle repeated three times', () => {
      const result = computeTraceFlags([root(), ...named('plan', 'search', 'read', 'search', 'read', 'search', 'read', 'answer')], 0, null, RULES);
      expect(result.flags).toEqual(['loop']);
      expect(result.details.loop).toBe('search → read repeated 3 times from step 2');
    });
    it('needs the repeats back to back and at least the threshold', () => {
      expect(flagsOf([root(), ...named('search', 'read', 'search', 'read')])).toEqual([]);
      expect(flagsOf([root(), ...named('search', 'read', 'x', 'search', 'read', 'y', 'search', 'read', 'z')])).toEqual([]);
      expect(flagsOf([root(), ...named('search', 'read', 'search', 'read')], 0, null, { ...RULES, loopMinRepeats: 2 })).toEqual(['loop']);
    });
    it('names tool spans by their tool, so calls of one tool with new arguments still loop', () => {
      const spans = [root(), tool('fetch', '1'), tool('fetch', '2'), tool('fetch', '3')];
      expect(computeTraceFlags(spans, 0, null, RULES).details.loop).toBe('tool:fetch repeated 3 times from step 1');
    });
    it('leaves the root out and sorts by start time', () => {
      const r = root({ name: 'a' });
      const [a1, a2] = named('a', 'a');
      expect(flagsOf([r, a1!, a2!])).toEqual([]);
      const spans = [root(), ...named('a', 'b', 'a', 'b', 'a', 'b')].reverse();
      expect(flagsOf(spans)).toEqual(['loop']);
    });
    it('stays linear on long traces', () => {
      const steps = Array.from({ length: 200_000 }, (_, i) => (i % 7 === 0 ? 'a' : `s${i}`));
      expect(findLoop(steps, 3, 5)).toBeUndefined();
      expect(findLoop(Array(200_000).fill('x'), 3, 5)).toBe('x repeated 200000 times from step 1');
    });
    it('ignores cycles longer than loopMaxCycle', () => {
      const cycle = ['a', 'b', 'c', 'd'];
      const steps = [...cycle, ...cycle, ...cycle];
      expect(findLoop(steps, 3, 4)).toBe('a → b → c → d repeated 3 times from step 1');
      expect(findLoop(steps, 3, 3)).toBeUndefined();
    });
  });

  describe('cost_outlier', () => {
    const stats = { median: 0.02, mad: 0.005 };
    it('fires above median + k·MAD', () => {
      const result = computeTraceFlags([root()], 0.05, stats, RULES); // threshold 0.045
      expect(result.flags).toEqual(['cost_outlier']);
      expect(result.details.cost_outlier).toContain('median 0.02');
      expect(flagsOf([root()], 0.044, stats)).toEqual([]);
      expect(flagsOf([root()], 0.05, stats, { ...RULES, costOutlierK: 10 })).toEqual([]);
    });
    it('needs project statistics and a cost', () => {
      expect(flagsOf([root()], 100, null)).toEqual([]);
      expect(flagsOf([root()], 0, { median: 0, mad: 0 })).toEqual([]);
    });
    it('treats a zero MAD as a tiny spread rather than none', () => {
      expect(flagsOf([root()], 0.02, { median: 0.02, mad: 0 })).toEqual([]);
      expect(flagsOf([root()], 0.021, { median: 0.02, mad: 0 })).toEqual(['cost_outlier']);
    });
  });

  describe('empty_output', () => {
    it('fires for an llm or agent span without output', () => {
      expect(flagsOf([root(), span({ spanType: 'llm', output: '' })])).toEqual(['empty_output']);
      expect(flagsOf([root(), span({ spanType: 'agent', output: ' null ' })])).toEqual(['empty_output']);
      expect(computeTraceFlags([root(), span({ name: 'chat', spanType: 'llm', output: '' })], 0, null, RULES).details.empty_output).toBe(
        'llm span "chat" finished with no output',
      );
    });
    it('does not fire for failed spans, other span types, or a model call that reported output tokens', () => {
      expect(flagsOf([root(), span({ spanType: 'llm', output: '', status: 'error' })])).toEqual([]);
      expect(flagsOf([root(), span({ spanType: 'tool', toolName: 't', output: '' })])).toEqual([]);
      expect(flagsOf([root(), span({ spanType: 'llm', output: '', outputTokens: 12 })])).toEqual([]);
      expect(flagsOf([root(), span({ spanType: 'llm', output: 'hi' })])).toEqual([]);
    });
    it('fires for an llm/agent root without output, unless it failed', () => {
      const result = computeTraceFlags([root({ spanType: 'agent', output: '' })], 0, null, RULES);
      expect(result.flags).toEqual(['empty_output']);
      expect(result.details.empty_output).toBe('the root agent span "root" has no output');
      expect(flagsOf([root({ spanType: 'agent', output: '', status: 'error' })])).toEqual([]);
      expect(flagsOf([root({ spanType: 'span', output: '' })])).toEqual([]);
    });
    it('judges no span of a trace whose root failed, nor a span inside a failed one', () => {
      expect(flagsOf([root({ status: 'error' }), span({ spanType: 'llm', output: '' })])).toEqual([]);
      const failedAgent = span({ spanType: 'agent', output: '', status: 'error' });
      expect(flagsOf([root(), failedAgent, span({ parentSpanId: failedAgent.spanId, spanType: 'llm', output: '' })])).toEqual([]);
    });
    it('counts a tool call or an answer below an agent as its output, not the tokens it reports', () => {
      const emptyOf = (spans: TraceStep[]) => computeTraceFlags(spans, 0, null, RULES).details.empty_output;
      const agent = (name: string, outputTokens = 0) => span({ name, spanType: 'agent', output: '', outputTokens });
      const called = agent('called');
      expect(emptyOf([root(), called, tool('search', '{}', { parentSpanId: called.spanId, output: '' })])).toBeUndefined();
      const answered = agent('answered');
      expect(emptyOf([root(), answered, span({ name: 'chat', parentSpanId: answered.spanId, spanType: 'llm', output: 'hello' })])).toBeUndefined();
      // Deeper down counts too; a model call with output tokens but no captured text answered.
      const outer = agent('outer');
      const inner = span({ name: 'step', parentSpanId: outer.spanId, spanType: 'chain', output: '' });
      const chat = span({ name: 'chat', parentSpanId: inner.spanId, spanType: 'llm', output: '', outputTokens: 30 });
      expect(emptyOf([root(), outer, inner, chat])).toBeUndefined();
      // Its own output tokens do not count; spans beside it, or below it without output, do not either.
      const alone = agent('alone', 500);
      const idle = agent('idle');
      const silent = span({ name: 'search docs', parentSpanId: idle.spanId, spanType: 'retrieval', output: '' });
      expect(emptyOf([root(), alone, tool('search', '{}'), idle, silent])).toBe('agent span "alone" finished with no output (and 1 more)');
    });
    it('knows empty JSON values', () => {
      expect(['', '  ', '""', 'null', '[]', '{}'].every(isEmptyOutput)).toBe(true);
      expect(['0', 'false', '" "', '{"a":1}'].some(isEmptyOutput)).toBe(false);
    });
  });

  it('reports several flags in a fixed order', () => {
    const spans = [root({ spanType: 'agent', output: '' }), tool('s', 'x'), tool('s', 'x'), tool('s', 'x'), span({ spanType: 'llm', output: '' })];
    expect(flagsOf(spans, 10, { median: 1, mad: 0.1 })).toEqual(['duplicate_tools', 'loop', 'cost_outlier', 'empty_output']);
  });
});

describe('empty_output on the spans instrumentations send', () => {
  // Each trace goes through the writer's normalization, then the rules see what storage
  // hands them (loadTraceSteps in storage: the stored span's fields).
  let n = 0;
  const otlpSpan = (name: string, parent: OtlpSpan | null, attributes: Attributes, extra: Partial<OtlpSpan> = {}): OtlpSpan => {
    n += 1;
    return makeSpan({
      spanId: n.toString(16).padStart(16, '0'),
      parentSpanId: parent?.spanId ?? '',
      name,
      startTimeUnixNano: nsAfterStart(n),
      endTimeUnixNano: nsAfterStart(1000 - n),
      attributes,
      ...extra,
    });
  };
  const stepsOf = (spans: OtlpSpan[], scope?: { name: string; version: string }): TraceStep[] =>
    spanRowsFromExport(makeExport(spans, undefined, scope), makeContext()).map((row, i) => ({
      spanId: row.span_id,
      name: row.name,
      parentSpanId: row.parent_span_id,
      spanType: row.span_type,
      toolName: row.tool_name,
      toolArguments: row.tool_arguments,
      output: row.output,
      outputTokens: row.output_tokens,
      status: row.status,
      startNs: spans[i]!.startTimeUnixNano,
    }));
  const emptyOf = (steps: TraceStep[]) => computeTraceFlags(steps, 0, null, RULES).details.empty_output;

  it('Vercel AI SDK: generateText ending in tool calls, without text, produced output', () => {
    const toolCalls = JSON.stringify([{ toolCallType: 'function', toolCallId: 'call_1', toolName: 'weather', input: '{"city":"Paris"}' }]);
    const generate = otlpSpan('ai.generateText', null, {
      'operation.name': 'ai.generateText',
      'ai.operationId': 'ai.generateText',
      'ai.model.id': 'gpt-4o',
      'ai.model.provider': 'openai.chat',
      'ai.prompt': '{"prompt":"Weather in Paris?"}',
      'ai.response.finishReason': 'tool-calls',
      'ai.response.toolCalls': toolCalls,
      'ai.usage.inputTokens': 20,
      'ai.usage.outputTokens': 15,
    });
    const doGenerate = otlpSpan('ai.generateText.doGenerate', generate, {
      'operation.name': 'ai.generateText.doGenerate',
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'gpt-4o',
      'ai.model.provider': 'openai.chat',
      'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}]',
      'ai.response.finishReason': 'tool-calls',
      'ai.response.toolCalls': toolCalls,
      'ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.system': 'openai.chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 15,
    });
    const toolCall = otlpSpan('ai.toolCall', generate, {
      'operation.name': 'ai.toolCall',
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'weather',
      'ai.toolCall.id': 'call_1',
      'ai.toolCall.input': '{"city":"Paris"}',
      'ai.toolCall.output': '{"temperature":21}',
    });
    const steps = stepsOf([generate, doGenerate, toolCall], { name: 'ai', version: '' });
    expect(emptyOf(steps)).toBeUndefined();
    // Read as an agent span whose output text leaves the tool calls out: the tool call below it still counts.
    const asAgent = steps.map((s) => (s.name === 'ai.generateText' ? { ...s, spanType: 'agent', output: '' } : s));
    expect(emptyOf(asAgent)).toBeUndefined();
    expect(emptyOf(asAgent.filter((s) => s.name !== 'ai.toolCall').map((s) => (s.spanType === 'llm' ? { ...s, output: '' } : s)))).toBeUndefined();
  });

  it('OpenInference: an AGENT span without output or token counts, whose model call answered', () => {
    const agent = otlpSpan('Support agent', null, { 'openinference.span.kind': 'AGENT', 'graph.node.id': 'Support agent' });
    const response = otlpSpan('response', agent, {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-2024-08-06',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'Where is my order?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'It ships tomorrow.',
    });
    const lookup = otlpSpan('lookup_order', agent, {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'lookup_order',
      'input.value': '{"id":7}',
      'output.value': '{"status":"shipped"}',
    });
    const steps = stepsOf([agent, response, lookup]);
    expect(steps.map((s) => [s.spanType, s.outputTokens])).toEqual([['agent', 0], ['llm', 0], ['tool', 0]]);
    expect(emptyOf(steps)).toBeUndefined();
    expect(emptyOf(stepsOf([agent, lookup]))).toBeUndefined();
    // Alone, with nothing below it, it produced nothing.
    expect(emptyOf(stepsOf([agent]))).toBe('the root agent span "Support agent" has no output');
  });

  it('a failed HTTP root: the model call it cut short is not flagged; under a root that answered 200 it is', () => {
    const http = (code: number) =>
      otlpSpan('POST /api/chat', null, { 'http.request.method': 'POST', 'http.route': '/api/chat', 'http.response.status_code': code }, {
        kind: 2,
        status: { code: code >= 500 ? 2 : 0, message: '' },
      });
    const chat = (root: OtlpSpan) =>
      otlpSpan('chat gpt-4o', root, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1200 }, { kind: 3 });
    const failed = http(500);
    expect(emptyOf(stepsOf([failed, chat(failed)]))).toBeUndefined();
    const served = http(200);
    expect(emptyOf(stepsOf([served, chat(served)]))).toBe('llm span "chat gpt-4o" finished with no output');
  });
});
