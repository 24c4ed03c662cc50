import { describe, expect, it } from 'vitest';
import { inputOfStored, mergePatch, resolveEvaluator, type EvaluatorDefinition } from './definition.ts';

const fields = (r: ReturnType<typeof resolveEvaluator>) => (r.ok ? [] : r.problems.map((p) => p.field));

describe('resolveEvaluator', () => {
  it('fills a model template for the chosen target', () => {
    const r = resolveEvaluator({ name: 'rel', template: 'relevance', target: 'session' }, true);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.definition).toMatchObject({
      kind: 'model',
      target: 'session',
      scoreName: 'relevance',
      variables: { input: 'session.input', output: 'session.output' },
      output: { type: 'numeric', min: 0, max: 1 },
      samplingRate: 1,
      concurrency: 4,
    });
  });

  it('names each field that is wrong', () => {
    expect(fields(resolveEvaluator({ name: 'x', template: 'relevance' }, false))).toEqual(['model.baseUrl']);
    expect(fields(resolveEvaluator({ name: 'x', template: 'hallucination', target: 'session' }, true))).toContain('target');
    expect(fields(resolveEvaluator({ name: 'x', prompt: '{{a}} {{b}}', variables: { a: 'trace.input', c: 'nope' }, output: { type: 'boolean' } }, true))).toEqual([
      'variables.b',
      'variables.c',
    ]);
    expect(fields(resolveEvaluator({ name: 'x', prompt: 'p', output: { type: 'numeric', min: 1, max: 1 } }, true))).toEqual(['output.min']);
    expect(fields(resolveEvaluator({ name: 'x', check: { type: 'regex' } }, true))).toContain('check.pattern');
    expect(fields(resolveEvaluator({ name: 'x', check: { type: 'shout' } }, true))).toEqual(['check.type']);
    expect(fields(resolveEvaluator({ name: 'x', template: 'contains', check: { value: 'a', field: 'span.output' } }, true))).toEqual(['check']);
  });

  it('a patch merges into the stored form and is resolved again', () => {
    const r = resolveEvaluator({ name: 'x', template: 'regex_match', check: { pattern: 'a+' } }, true);
    if (!r.ok) throw new Error('expected ok');
    const stored = { ...r.value.definition, traceFilter: {}, spanFilterFields: {} } as EvaluatorDefinition;
    const merged = mergePatch(inputOfStored('x', false, stored), { check: { flags: 'i' }, autoRun: true });
    const again = resolveEvaluator(merged, true);
    expect(again.ok && again.value.definition.check).toEqual({ type: 'regex', pattern: 'a+', flags: 'i' });
    expect(again.ok && again.value.autoRun).toBe(true);
  });

  it('a new template brings its own prompt and output', () => {
    const r = resolveEvaluator({ name: 'x', template: 'relevance' }, true);
    if (!r.ok) throw new Error('expected ok');
    const stored = { ...r.value.definition, traceFilter: {}, spanFilterFields: {} } as EvaluatorDefinition;
    const again = resolveEvaluator(mergePatch(inputOfStored('x', false, stored), { template: 'toxicity' }), true);
    expect(again.ok && again.value.definition).toMatchObject({ template: 'toxicity', scoreName: 'toxicity', output: { type: 'boolean' } });
    expect(again.ok && again.value.definition.prompt).toContain('toxic');
  });
});
