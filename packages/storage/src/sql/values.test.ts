import { describe, expect, it } from 'vitest';
import { msToDateTimeParam, nanosToDateTimeValue, nanosToIso, sqlStringConstant } from './values.ts';

describe('msToDateTimeParam', () => {
  it('writes decimal seconds with 3 fractional digits', () => {
    expect(msToDateTimeParam(1_700_000_000_123)).toBe('1700000000.123');
    expect(msToDateTimeParam(1_700_000_000_005)).toBe('1700000000.005');
    expect(msToDateTimeParam(1_700_000_000_000)).toBe('1700000000.000');
    expect(msToDateTimeParam(0)).toBe('0.000');
    expect(msToDateTimeParam(999)).toBe('0.999');
  });

  it('agrees with the Date it came from', () => {
    const ms = Date.parse('2026-03-04T05:06:07.089Z');
    const [whole, frac] = msToDateTimeParam(ms).split('.');
    expect(new Date(Number(whole) * 1000 + Number(frac)).toISOString()).toBe('2026-03-04T05:06:07.089Z');
  });
});

describe('nanosToDateTimeValue', () => {
  it('writes decimal seconds with 9 fractional digits, exactly', () => {
    expect(nanosToDateTimeValue('1700000000123456789')).toBe('1700000000.123456789');
    expect(nanosToDateTimeValue('1700000000000000001')).toBe('1700000000.000000001');
  });

  it('pads small values', () => {
    expect(nanosToDateTimeValue('5')).toBe('0.000000005');
    expect(nanosToDateTimeValue('0')).toBe('0.000000000');
    expect(nanosToDateTimeValue('1000000000')).toBe('1.000000000');
  });
});

describe('nanosToIso', () => {
  it('writes ISO 8601 with 9 exact fractional digits', () => {
    // 2^53 is about 9e15: these nanos are beyond exact Number range.
    expect(nanosToIso('1767225600123456789')).toBe('2026-01-01T00:00:00.123456789Z');
    expect(nanosToIso('1767225659999999999')).toBe('2026-01-01T00:00:59.999999999Z');
  });

  it('pads small values', () => {
    expect(nanosToIso('0')).toBe('1970-01-01T00:00:00.000000000Z');
    expect(nanosToIso('42')).toBe('1970-01-01T00:00:00.000000042Z');
    expect(nanosToIso('61000000007')).toBe('1970-01-01T00:01:01.000000007Z');
  });

  it('agrees with Date to the millisecond', () => {
    const iso = nanosToIso('1700000000987654321');
    expect(new Date(iso).toISOString()).toBe(new Date(1_700_000_000_987).toISOString());
  });
});

describe('sqlStringConstant', () => {
  it('quotes a constant, escaping backslashes and quotes', () => {
    expect(sqlStringConstant('^-\\d{8}$')).toBe("'^-\\\\d{8}$'");
    expect(sqlStringConstant("it's")).toBe("'it\\'s'");
  });
});
