import { describe, expect, it } from 'vitest';
import { KeyedLimiter } from './limiter.ts';

describe('KeyedLimiter', () => {
  it('runs at most `limit` at once per key, in arrival order, keys apart', async () => {
    const limiter = new KeyedLimiter();
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      order.push(i);
      running -= 1;
      return i;
    };
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => limiter.run('a', 2, task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limiter.active('a')).toBe(0);
    // A failing task frees its slot.
    await expect(limiter.run('b', 1, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await limiter.run('b', 1, async () => 'next')).toBe('next');
  });
});
