import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { parseOrThrow, queryParams } from './validation.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

const allowed = { single: ['limit', 'cursor'], repeated: ['tag'] };
const url = (query: string) => `http://localhost/v1/traces?${query}`;

describe('queryParams', () => {
  it('returns single values as strings and repeated ones as lists', () => {
    expect(queryParams(url('limit=5&tag=a&cursor=c%3D&tag=b'), allowed)).toEqual({ limit: '5', cursor: 'c=', tag: ['a', 'b'] });
  });

  it('returns a one-item list for a repeatable parameter given once', () => {
    expect(queryParams(url('tag=a'), allowed)).toEqual({ tag: ['a'] });
  });

  it('returns an empty object with no query', () => {
    expect(queryParams('http://localhost/v1/traces', allowed)).toEqual({});
  });

  it('refuses an unknown parameter with 400 naming it', () => {
    const err = apiError(() => queryParams(url('limit=5&limt=6'), allowed));
    expect(err.status).toBe(400);
    expect(err.message).toContain('limt');
    expect(err.details).toEqual([{ field: 'limt', message: expect.any(String) }]);
  });

  it('refuses a single-valued parameter given twice', () => {
    const err = apiError(() => queryParams(url('limit=5&limit=6'), allowed));
    expect(err.status).toBe(400);
    expect(err.details[0]?.field).toBe('limit');
  });

  it('does not mistake inherited object names for given parameters', () => {
    expect(queryParams(url('toString=1'), { single: ['toString'] })).toEqual({ toString: '1' });
    expect(queryParams(url('constructor=a&constructor=b'), { single: [], repeated: ['constructor'] })).toEqual({
      constructor: ['a', 'b'],
    });
  });
});

describe('parseOrThrow', () => {
  it('returns the parsed value or a 400 listing every field', () => {
    const schema = v.object({ a: v.string(), b: v.number() });
    expect(parseOrThrow(schema, { a: 'x', b: 1 }, 'thing')).toEqual({ a: 'x', b: 1 });
    const err = apiError(() => parseOrThrow(schema, { a: 1, b: 'y' }, 'thing'));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^invalid thing: a: /);
    expect(err.details.map((d) => d.field)).toEqual(['a', 'b']);
    const whole = apiError(() => parseOrThrow(schema, 'text', 'body'));
    expect(whole.details).toEqual([{ field: 'body', message: expect.any(String) }]);
  });
});
