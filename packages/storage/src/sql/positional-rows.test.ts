import { describe, expect, it } from 'vitest';
import { positionalRows } from './positional-rows.ts';

describe('positionalRows', () => {
  it('reads each field at its position', () => {
    const read = positionalRows<{ a: string; b: number }>(['a', 'b']);
    const row = read(['x', 2]);
    expect([row.a, row.b]).toEqual(['x', 2]);
    expect(read(['y', 3]).a).toBe('y');
  });

  it('reads a missing value as undefined', () => {
    expect(positionalRows<{ a: string; b: number }>(['a', 'b'])(['only a']).b).toBeUndefined();
  });
});
