import { describe, expect, it } from 'vitest';
import { checkScoreAgainstConfig, ScoreConfigError, type ScoreConfig } from './configs.ts';
import { throwIfInvalidConfig } from './config-rules.ts';

function config(overrides: Partial<ScoreConfig>): ScoreConfig {
  return {
    id: 'sc_1',
    projectId: 'p',
    name: 'quality',
    dataType: 'numeric',
    min: null,
    max: null,
    categories: null,
    description: '',
    archived: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    createdBy: 'key_1',
    ...overrides,
  };
}
const num = (value: number | boolean | null) => ({ value, stringValue: null });
const str = (stringValue: string | null) => ({ value: null, stringValue });

describe('checkScoreAgainstConfig', () => {
  it('numeric: any finite number when unbounded, bounds inclusive when set', () => {
    const open = config({});
    for (const v of [-1e9, 0, 0.5, 1e12]) expect(checkScoreAgainstConfig(open, num(v))).toBeNull();
    const bounded = config({ min: 0, max: 1 });
    expect(checkScoreAgainstConfig(bounded, num(0))).toBeNull();
    expect(checkScoreAgainstConfig(bounded, num(1))).toBeNull();
    expect(checkScoreAgainstConfig(bounded, num(-0.1))).toBe('value -0.1 is below the minimum 0');
    expect(checkScoreAgainstConfig(bounded, num(1.5))).toBe('value 1.5 is above the maximum 1');
    expect(checkScoreAgainstConfig(config({ min: 3 }), num(1e9))).toBeNull();
    expect(checkScoreAgainstConfig(config({ max: 3 }), num(-1e9))).toBeNull();
  });

  it('numeric: refuses other kinds of value and non-finite numbers', () => {
    const c = config({ min: 0, max: 1 });
    expect(checkScoreAgainstConfig(c, num(true))).toMatch(/needs a number as value, got true/);
    expect(checkScoreAgainstConfig(c, num(null))).toMatch(/needs a number as value, got null/);
    expect(checkScoreAgainstConfig(c, str('0.5'))).toMatch(/not a stringValue/);
    expect(checkScoreAgainstConfig(c, { value: 0.5, stringValue: 'x' })).toMatch(/not a stringValue/);
    expect(checkScoreAgainstConfig(config({}), num(Number.NaN))).toMatch(/finite/);
    expect(checkScoreAgainstConfig(config({}), num(Number.POSITIVE_INFINITY))).toMatch(/finite/);
  });

  it('boolean: true or false, not 0/1 (a 1 would be stored as a numeric score)', () => {
    const c = config({ dataType: 'boolean' });
    for (const v of [true, false]) expect(checkScoreAgainstConfig(c, num(v)), String(v)).toBeNull();
    for (const v of [0, 1, 0.5, null]) expect(checkScoreAgainstConfig(c, num(v)), String(v)).toMatch(/needs true or false as value, got/);
    expect(checkScoreAgainstConfig(c, str('true'))).toMatch(/boolean.*not a stringValue/);
  });

  it('categorical: stringValue must be one of the categories, exactly', () => {
    const c = config({ dataType: 'categorical', categories: ['good', 'bad'] });
    expect(checkScoreAgainstConfig(c, str('good'))).toBeNull();
    expect(checkScoreAgainstConfig(c, str('bad'))).toBeNull();
    expect(checkScoreAgainstConfig(c, str('Good'))).toBe('"Good" is not one of the categories "good", "bad"');
    expect(checkScoreAgainstConfig(c, str(null))).toMatch(/needs a stringValue, one of "good", "bad"/);
    expect(checkScoreAgainstConfig(c, num(1))).toMatch(/categorical.*not a value/);
    expect(checkScoreAgainstConfig(c, { value: 1, stringValue: 'good' })).toMatch(/not a value/);
  });

  it('cuts a long category list short in the reason', () => {
    const categories = Array.from({ length: 100 }, (_, i) => `c${i}`);
    const reason = checkScoreAgainstConfig(config({ dataType: 'categorical', categories }), str('nope'));
    expect(reason).toContain('"c9", … (100 in all)');
    expect(reason).not.toContain('"c10"');
  });

  it('an archived config takes no scores, even fitting ones', () => {
    expect(checkScoreAgainstConfig(config({ archived: true }), num(1))).toMatch(/archived/);
  });
});

describe('config rules', () => {
  const problems = (c: ScoreConfig) => {
    try {
      throwIfInvalidConfig(c);
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ScoreConfigError);
      return (err as ScoreConfigError).details.map((d) => d.field);
    }
  };

  it('accepts well-formed configs of each type', () => {
    expect(problems(config({ min: 0, max: 0 }))).toEqual([]);
    expect(problems(config({ dataType: 'boolean' }))).toEqual([]);
    expect(problems(config({ dataType: 'categorical', categories: ['a'] }))).toEqual([]);
  });

  it('names the field of each broken rule', () => {
    expect(problems(config({ min: 2, max: 1 }))).toEqual(['min']);
    expect(problems(config({ categories: ['a'] }))).toEqual(['categories']);
    expect(problems(config({ dataType: 'boolean', max: 1 }))).toEqual(['max']);
    expect(problems(config({ dataType: 'categorical', categories: null, min: 0 }))).toEqual(['min', 'categories']);
    expect(problems(config({ dataType: 'categorical', categories: [] }))).toEqual(['categories']);
    expect(problems(config({ dataType: 'categorical', categories: ['a', ' ', 'a'] }))).toEqual(['categories.1', 'categories.2']);
    expect(problems(config({ dataType: 'categorical', categories: Array.from({ length: 101 }, (_, i) => `${i}`) }))).toEqual(['categories']);
    expect(problems(config({ name: '', description: 'x'.repeat(2001) }))).toEqual(['name', 'description']);
    expect(problems(config({ name: 'x'.repeat(201) }))).toEqual(['name']);
  });
});
