import { describe, expect, it } from 'vitest';
import { flattenAttributes, toNumber, truncateUtf8, ValueLimiter } from './attributes.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('truncateUtf8', () => {
  it('leaves text that fits alone', () => {
    expect(truncateUtf8('héllo', 6)).toBeUndefined();
    expect(truncateUtf8('héllo', 5)).toBe('héll');
  });

  it('never splits a multi-byte character', () => {
    const text = 'é'.repeat(10) + '😀'.repeat(5); // 20 + 20 bytes
    for (let max = 1; max < bytes(text); max++) {
      const cut = truncateUtf8(text, max);
      expect(cut).toBeDefined();
      expect(bytes(cut!)).toBeLessThanOrEqual(max);
      expect(bytes(cut!)).toBeGreaterThan(max - 4);
      expect(text.startsWith(cut!)).toBe(true);
      expect(cut!.endsWith('\uFFFD')).toBe(false);
    }
  });
});

describe('flattenAttributes', () => {
  it('keeps strings and JSON-encodes everything else', () => {
    const limiter = new ValueLimiter(1000);
    const flat = flattenAttributes({ s: 'x', n: 3, b: false, nil: null, list: [1, 'a'], map: { k: { v: 1 } } }, limiter);
    expect(flat).toEqual({ s: 'x', n: '3', b: 'false', nil: 'null', list: '[1,"a"]', map: '{"k":{"v":1}}' });
    expect(limiter.truncated).toBe(false);
  });

  it('cuts oversized values and remembers it', () => {
    const limiter = new ValueLimiter(8);
    const flat = flattenAttributes({ short: 'ok', long: 'abcdefghijkl', json: [123456, 789012] }, limiter);
    expect(flat).toEqual({ short: 'ok', long: 'abcdefgh', json: '[123456,' });
    expect(limiter.truncated).toBe(true);
  });

  it('stores a "__proto__" key as data', () => {
    const flat = flattenAttributes(JSON.parse('{"__proto__":"x"}') as Record<string, string>, new ValueLimiter(100));
    expect(Object.keys(flat)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
  });
});

describe('toNumber', () => {
  it('accepts numbers and numeric strings only', () => {
    expect(toNumber(12)).toBe(12);
    expect(toNumber('9007199254740993')).toBe(9007199254740992);
    expect(toNumber(' 7 ')).toBe(7);
    expect(toNumber('')).toBeUndefined();
    expect(toNumber('12 tokens')).toBeUndefined();
    expect(toNumber(true)).toBeUndefined();
    expect(toNumber(undefined)).toBeUndefined();
  });
});
