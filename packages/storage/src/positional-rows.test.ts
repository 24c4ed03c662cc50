import { describe, expect, it } from 'vitest';
import { positionalRows } from './positional-rows.ts';

describe('positionalRows', () => {
  it('reads each field at its position after the offset', () => {
    const read = positionalRows<{ a: string; b: number }>(['a', 'b'], 1);
    const row = read(['sort key', 'x', 2]);
    expect([row.a, row.b]).toEqual(['x', 2]);
    expect(read(['k', 'y', 3]).a).toBe('y');
  });

  it('reads a missing value as undefined', () => {
    expect(positionalRows<{ a: string; b: number }>(['a', 'b'])(['only a']).b).toBeUndefined();
  });
});
