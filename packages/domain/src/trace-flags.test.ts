import { describe, expect, it } from 'vitest';
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
const root = (partial: Partial<TraceStep> = {}) => span({ name: 'root', parentSpanId: '', ...partial });
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
    it('fires for an llm/agent root without output even when it failed', () => {
      const result = computeTraceFlags([root({ spanType: 'agent', output: '', status: 'error' })], 0, null, RULES);
      expect(result.flags).toEqual(['empty_output']);
      expect(result.details.empty_output).toContain('root agent span');
      expect(flagsOf([root({ spanType: 'span', output: '' })])).toEqual([]);
    });
    it('knows empty JSON values', () => {
      expect(['', '  ', '""', 'null', '[]', '{}'].every(isEmptyOutput)).toBe(true);
      expect(['0', 'false', '" "', '{"a":1}'].some(isEmptyOutput)).toBe(false);
    });
  });

  it('reports several flags in a fixed order', () => {
    const spans = [root({ spanType: 'agent', output: '' }), tool('s', 'x'), tool('s', 'x'), tool('s', 'x')];
    expect(flagsOf(spans, 10, { median: 1, mad: 0.1 })).toEqual(['duplicate_tools', 'loop', 'cost_outlier', 'empty_output']);
  });
});
