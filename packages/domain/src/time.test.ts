import { describe, expect, it } from 'vitest';
import { diffMillis, durationMillis, nanosToMillis } from './time.ts';

describe('nanosecond timestamps', () => {
  it('reads whole milliseconds and the remainder exactly', () => {
    expect(nanosToMillis('1735689600123456789')).toBe(1735689600123);
    expect(nanosToMillis('999999')).toBe(0);
    expect(diffMillis('1735689600000000000', '1735689601500250999')).toBe(1500.251);
    expect(durationMillis('1735689600000000000', '0')).toBe(0);
    expect(durationMillis('1735689600000000000', '1735689599000000000')).toBe(0);
  });

  it('reads what is not a plain run of digits as Number does', () => {
    for (const nanos of ['+1735689600123456789', ' 1735689600123456789', '17356896001234567890000', '1e30000000', 'abc1234567']) {
      expect(nanosToMillis(nanos), nanos).toBe(Number(nanos.slice(0, -6)));
    }
    expect(diffMillis('1000000', ' 3000000')).toBe(2);
    expect(diffMillis('x', '1000000')).toBeNaN();
  });
});
