import { describe, expect, it } from 'vitest';
import { keysetChunks, nestedChunks, type FetchPage } from './keyset-chunks.ts';

/** A fake keyset source over 0..total-1 that records every limit it is asked for. */
function numbers(total: number) {
  const limits: number[] = [];
  const fetchPage: FetchPage<number, number> = async (limit, after) => {
    limits.push(limit);
    const start = after === undefined ? 0 : after + 1;
    const rows = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => start + i);
    const last = rows[rows.length - 1];
    return { rows, next: last !== undefined && last < total - 1 ? last : null };
  };
  return { fetchPage, limits };
}

async function collect<T>(chunks: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('keysetChunks', () => {
  it('reads everything, in order, never asking for more than one chunk at a time', async () => {
    const source = numbers(20_000);
    const chunks = await collect(keysetChunks(source.fetchPage, 2_000));
    expect(chunks.flat()).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(chunks.every((c) => c.length <= 2_000)).toBe(true);
    expect(source.limits).toHaveLength(10);
    expect(Math.max(...source.limits)).toBe(2_000);
  });

  it('fetches the next page only when the consumer asks for it', async () => {
    const source = numbers(10);
    const chunks = keysetChunks(source.fetchPage, 3);
    expect(source.limits).toHaveLength(0);
    expect((await chunks.next()).value).toEqual([0, 1, 2]);
    expect(source.limits).toHaveLength(1);
    expect((await chunks.next()).value).toEqual([3, 4, 5]);
    expect(source.limits).toHaveLength(2);
    await chunks.return();
    expect(source.limits).toHaveLength(2);
  });

  it('ends on an empty source and on a last page that fills the limit exactly', async () => {
    expect(await collect(keysetChunks(numbers(0).fetchPage, 5))).toEqual([]);
    const exact = numbers(10);
    expect((await collect(keysetChunks(exact.fetchPage, 5))).map((c) => c.length)).toEqual([5, 5]);
    expect(exact.limits).toHaveLength(2);
  });

  it('refuses a page larger than its limit and a chunk size that is not a positive integer', async () => {
    const tooBig: FetchPage<number, number> = async () => ({ rows: [1, 2, 3], next: null });
    await expect(collect(keysetChunks(tooBig, 2))).rejects.toThrow(/3 rows came back for a limit of 2/);
    await expect(collect(keysetChunks(numbers(3).fetchPage, 0))).rejects.toThrow(RangeError);
  });
});

describe('nestedChunks', () => {
  it('walks the children of each parent chunk, each bounded by the chunk size', async () => {
    const parents = numbers(7);
    const childLimits: number[] = [];
    // Each parent n has n * 3 children.
    const chunks = nestedChunks(keysetChunks(parents.fetchPage, 3), (ids) => {
      const children = ids.flatMap((n) => Array.from({ length: n * 3 }, (_, i) => `${n}.${i}`));
      return keysetChunks<string, number>(async (limit, after) => {
        childLimits.push(limit);
        const start = after ?? 0;
        const rows = children.slice(start, start + limit);
        return { rows, next: start + limit < children.length ? start + limit : null };
      }, 3);
    });
    const all = await collect(chunks);
    expect(all.flat()).toHaveLength((0 + 1 + 2 + 3 + 4 + 5 + 6) * 3);
    expect(all.every((c) => c.length <= 3)).toBe(true);
    expect(Math.max(...parents.limits, ...childLimits)).toBe(3);
  });
});
