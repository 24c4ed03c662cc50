import { describe, expect, it } from 'vitest';
import { int64ToValue, parseInt64, parseUint64, uint64ToDecimal } from './int64.ts';
import { randomUint64, seededRandom } from '../testing/random.ts';

const halves = (value: bigint): [number, number] => [
  Number(value & 0xffffffffn),
  Number((value >> 32n) & 0xffffffffn),
];

describe('uint64ToDecimal', () => {
  it('matches BigInt on edge values', () => {
    for (const value of [0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 1700000000123456789n, 2n ** 64n - 1n]) {
      expect(uint64ToDecimal(...halves(value))).toBe(value.toString());
    }
  });

  it('matches BigInt on random values', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 20_000; i++) {
      const value = randomUint64(random) >> BigInt(i % 64);
      expect(uint64ToDecimal(...halves(value))).toBe(value.toString());
    }
  });
});

describe('int64ToValue', () => {
  const cases: [bigint, number | string][] = [
    [0n, 0],
    [-1n, -1],
    [2n ** 53n - 1n, Number.MAX_SAFE_INTEGER],
    [-(2n ** 53n - 1n), Number.MIN_SAFE_INTEGER],
    [2n ** 53n, '9007199254740992'],
    [-(2n ** 53n), '-9007199254740992'],
    [2n ** 63n - 1n, '9223372036854775807'],
    [-(2n ** 63n), '-9223372036854775808'],
  ];
  it.each(cases)('%s', (value, expected) => {
    expect(int64ToValue(...halves(BigInt.asUintN(64, value)))).toBe(expected);
  });

  it('matches BigInt on random values', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 20_000; i++) {
      const value = BigInt.asIntN(64, randomUint64(random) >> BigInt(i % 64));
      const decoded = int64ToValue(...halves(BigInt.asUintN(64, value)));
      expect(String(decoded)).toBe(value.toString());
      expect(typeof decoded).toBe(value >= -(2n ** 53n - 1n) && value <= 2n ** 53n - 1n ? 'number' : 'string');
    }
  });
});

describe('parseUint64', () => {
  it('accepts decimal strings and integral numbers, canonicalized', () => {
    expect(parseUint64('0')).toBe('0');
    expect(parseUint64('000123')).toBe('123');
    expect(parseUint64('18446744073709551615')).toBe('18446744073709551615');
    expect(parseUint64(1700000000)).toBe('1700000000');
    // The exact value of the double, not its shortest printed form.
    expect(parseUint64(2 ** 60)).toBe('1152921504606846976');
  });
  it.each(['', 'abc', '-1', '1.5', '1e3', ' 1', '18446744073709551616', '99999999999999999999'])('rejects %j', (text) => {
    expect(parseUint64(text)).toBeUndefined();
  });
  it.each([-1, 1.5, NaN, Infinity, 2 ** 64, true, null, {}])('rejects %s', (value) => {
    expect(parseUint64(value)).toBeUndefined();
  });
});

describe('parseInt64', () => {
  it('returns numbers when exact and strings beyond 2^53', () => {
    expect(parseInt64('5')).toBe(5);
    expect(parseInt64('-5')).toBe(-5);
    expect(parseInt64('-0')).toBe(0);
    expect(parseInt64('9007199254740991')).toBe(9007199254740991);
    expect(parseInt64('9007199254740992')).toBe('9007199254740992');
    expect(parseInt64('-9223372036854775808')).toBe('-9223372036854775808');
    expect(parseInt64('9223372036854775807')).toBe('9223372036854775807');
    expect(parseInt64(-12)).toBe(-12);
    expect(parseInt64(2 ** 62)).toBe('4611686018427387904');
  });
  it.each(['9223372036854775808', '-9223372036854775809', '', '-', '1.0', 'x', 2 ** 63, 0.5, false])('rejects %j', (value) => {
    expect(parseInt64(value)).toBeUndefined();
  });
});
