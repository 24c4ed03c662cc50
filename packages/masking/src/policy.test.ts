import { describe, expect, it } from 'vitest';
import { MaskingPolicyError, parsePolicy, type PolicyProblem } from './policy.ts';

function problemsOf(input: unknown): PolicyProblem[] {
  try {
    parsePolicy(input);
  } catch (err) {
    expect(err).toBeInstanceOf(MaskingPolicyError);
    return (err as MaskingPolicyError).problems;
  }
  throw new Error('policy was accepted');
}

describe('parsePolicy', () => {
  it('fills defaults: type_tag replacement and every field', () => {
    expect(parsePolicy({ rules: [{ name: 'emails', detector: 'email' }] })).toEqual({
      rules: [
        {
          name: 'emails',
          detector: 'email',
          replacement: { style: 'type_tag' },
          fields: { input: true, output: true, events: true, statusMessage: true, attributes: ['*'] },
        },
      ],
    });
  });

  it('takes explicit fields as the exact list (missing ones off)', () => {
    const policy = parsePolicy({
      rules: [{ name: 'emp', pattern: 'EMP-\\d{6}', flags: 'i', replacement: { style: 'keep_last', n: 2 }, fields: { output: true, attributes: ['user.*'] } }],
    });
    expect(policy.rules[0]).toEqual({
      name: 'emp',
      pattern: 'EMP-\\d{6}',
      flags: 'i',
      replacement: { style: 'keep_last', n: 2 },
      fields: { input: false, output: true, events: false, statusMessage: false, attributes: ['user.*'] },
    });
  });

  it('accepts an empty policy (masking off)', () => {
    expect(parsePolicy({ rules: [] })).toEqual({ rules: [] });
  });

  it('refuses unknown keys at every level', () => {
    expect(problemsOf({ rules: [], extra: 1 }).map((p) => p.field)).toEqual(['extra']);
    expect(problemsOf({ rules: [{ name: 'a', detector: 'email', colour: 'red' }] }).map((p) => p.field)).toEqual(['rules.0.colour']);
    expect(problemsOf({ rules: [{ name: 'a', detector: 'email', fields: { inputs: true } }] }).map((p) => p.field)).toEqual(['rules.0.fields.inputs']);
    expect(problemsOf({ rules: [{ name: 'a', detector: 'email', replacement: { style: 'hash', salt: 'x' } }] }).map((p) => p.field)).toEqual([
      'rules.0.replacement.salt',
    ]);
  });

  it('refuses bad names, unknown detectors, both or neither of detector/pattern, duplicates', () => {
    const problems = problemsOf({
      rules: [
        { name: 'Bad Name', detector: 'email' },
        { name: 'x', detector: 'passport' },
        { name: 'both', detector: 'email', pattern: 'a' },
        { name: 'neither' },
        { name: 'dup', detector: 'jwt' },
        { name: 'dup', detector: 'iban' },
        { name: 'flags', detector: 'jwt', flags: 'i' },
      ],
    });
    expect(problems).toEqual([
      { field: 'rules.0.name', message: expect.stringContaining('lowercase letters') },
      { field: 'rules.1.detector', message: expect.stringContaining('must be one of email, phone') },
      { field: 'rules.2', message: 'must have exactly one of detector or pattern' },
      { field: 'rules.3', message: 'must have exactly one of detector or pattern' },
      { field: 'rules.5.name', message: 'duplicate rule name "dup"' },
      { field: 'rules.6.flags', message: 'only applies to a pattern rule' },
    ]);
  });

  it('checks replacements and fields', () => {
    const problems = problemsOf({
      rules: [
        { name: 'a', detector: 'email', replacement: { style: 'keep_last', n: 9 } },
        { name: 'b', detector: 'email', replacement: { style: 'fixed', text: 'say "hi"' } },
        { name: 'c', detector: 'email', replacement: { style: 'redact' } },
        { name: 'd', detector: 'email', fields: {} },
        { name: 'e', pattern: 'x', flags: 'ig' },
        { name: 'f', pattern: 'x', flags: 'ii' },
      ],
    });
    expect(problems.map((p) => p.field)).toEqual([
      'rules.0.replacement.n',
      'rules.1.replacement.text',
      'rules.2.replacement.style',
      'rules.3.fields',
      'rules.4.flags',
      'rules.5.flags',
    ]);
    expect(problems[1]!.message).toBe('must not contain quotes, backslashes or control characters');
  });

  it('enforces limits', () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `r${i}`, detector: 'email' }));
    expect(problemsOf({ rules: many })).toEqual([{ field: 'rules', message: 'at most 50 rules' }]);
    expect(problemsOf({ rules: [{ name: 'long', pattern: 'a'.repeat(501) }] })[0]!.field).toBe('rules.0.pattern');
    expect(problemsOf({ rules: [{ name: 'n'.repeat(65), detector: 'email' }] })[0]!.field).toBe('rules.0.name');
    const globs = Array.from({ length: 51 }, (_, i) => `k${i}`);
    expect(problemsOf({ rules: [{ name: 'g', detector: 'email', fields: { attributes: globs } }] })[0]!.field).toBe('rules.0.fields.attributes');
  });

  it('refuses a body that is not a policy', () => {
    expect(problemsOf(null)[0]!.field).toBe('');
    expect(problemsOf({ rules: 'all' })[0]!.field).toBe('rules');
  });
});

describe('pattern checks', () => {
  it('refuses invalid syntax with the engine message', () => {
    expect(problemsOf({ rules: [{ name: 'p', pattern: '(unclosed' }] })).toEqual([
      { field: 'rules.0.pattern', message: expect.stringMatching(/^invalid regular expression: .*Unterminated group/) },
    ]);
    expect(problemsOf({ rules: [{ name: 'p', pattern: '\\p{Letter', flags: 'u' }] })[0]!.message).toMatch(/^invalid regular expression/);
  });

  it.each(['(a+)+$', '(a|a)*b', '(\\w+\\s?)+$', '(x+x+)+y', '.*a.*b'])('refuses catastrophic backtracking in %s', (pattern) => {
    const [problem] = problemsOf({ rules: [{ name: 'p', pattern }] });
    expect(problem).toEqual({ field: 'rules.0.pattern', message: expect.stringContaining('backtrack catastrophically') });
  });

  it.each(['a*', '\\b', '(?=x)|y*', 'x?', '^', '$'])('refuses %s, which matches the empty string', (pattern) => {
    expect(problemsOf({ rules: [{ name: 'p', pattern }] })).toEqual([
      { field: 'rules.0.pattern', message: 'pattern matches the empty string, so it would mask nothing' },
    ]);
  });

  it('refuses named groups, which the backtracking check cannot analyse', () => {
    expect(problemsOf({ rules: [{ name: 'p', pattern: '(?<year>\\d{4})-\\k<year>' }] })[0]!.message).toContain('named groups');
  });

  it.each([
    '\\bEMP-\\d{6}\\b',
    '[a-z]+@[a-z]+\\.com',
    '\\s*,\\s*',
    '(?<=password=)[^&\\s]+',
    '"password"\\s*:\\s*"[^"]*"',
    '\\b(?:acct|account)[ #:]*\\d{6,12}\\b',
    '\\p{Lu}{2}\\d{6}',
  ])('accepts the ordinary pattern %s', (pattern) => {
    expect(() => parsePolicy({ rules: [{ name: 'p', pattern, flags: pattern.includes('\\p') ? 'u' : undefined }] })).not.toThrow();
  });

  it('bounds the time spent checking one policy', () => {
    const rules = Array.from({ length: 30 }, (_, i) => ({ name: `slow${i}`, pattern: `(a|a)*b${i}` }));
    const started = performance.now();
    const problems = problemsOf({ rules });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(problems).toHaveLength(30);
    expect(problems.at(-1)!.message).toMatch(/^not checked: /);
  });

  it('lists every problem of a policy at once, in document order', () => {
    const problems = problemsOf({
      rules: [
        { name: 'ok', detector: 'email' },
        { name: 'bad1', pattern: '(a+)+$' },
        { name: 'bad2', pattern: '[' },
        { name: 'bad3', detector: 'email', replacement: { style: 'keep_last', n: 0 } },
      ],
      unknown: true,
    });
    expect(problems.map((p) => p.field)).toEqual(['rules.1.pattern', 'rules.2.pattern', 'rules.3.replacement.n', 'unknown']);
    const error = (() => {
      try {
        parsePolicy({ rules: [{ name: 'p', pattern: '(a+)+$' }] });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(error?.message).toMatch(/^invalid masking policy: rules\.0\.pattern: pattern can backtrack catastrophically/);
  });
});
