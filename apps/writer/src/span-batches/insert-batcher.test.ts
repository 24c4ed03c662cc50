import { afterEach, describe, expect, it, vi } from 'vitest';
import { InsertBatcher, type InsertBatcherOptions } from './insert-batcher.ts';

/** A recording insert; `fail` decides per call whether it throws. */
function recorder(fail: (rows: number[]) => boolean = () => false) {
  const calls: number[][] = [];
  const insert = async (rows: number[]) => {
    calls.push([...rows]);
    await Promise.resolve();
    if (fail(rows)) throw new Error(`bad rows ${rows.join(',')}`);
  };
  return { calls, insert };
}

function batcher(opts: Partial<InsertBatcherOptions<number>> & Pick<InsertBatcherOptions<number>, 'insert'>) {
  return new InsertBatcher<number>({ maxRows: 1000, maxWaitMs: 10_000, maxPendingAdds: 100, ...opts });
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** Tracks whether a promise has settled, without awaiting it. */
function track(p: Promise<void>) {
  const state = { settled: false, error: undefined as unknown };
  p.then(
    () => (state.settled = true),
    (e: unknown) => {
      state.settled = true;
      state.error = e;
    },
  );
  return state;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('InsertBatcher', () => {
  it('writes one combined block once maxRows is reached', async () => {
    const { calls, insert } = recorder();
    const b = batcher({ maxRows: 5, insert });
    const first = track(b.add([1, 2]));
    await settle();
    expect(calls).toEqual([]);
    expect(first.settled).toBe(false);
    await Promise.all([b.add([3, 4, 5]), first]);
    expect(calls).toEqual([[1, 2, 3, 4, 5]]);
    expect(first.settled).toBe(true);
  });

  it('never puts items of two kinds in one block: an add of another kind writes the pending block first', async () => {
    const { calls, insert } = recorder();
    // Odd and even stand for two row formats.
    const b = batcher({ maxRows: 100, insert, kindOf: (rows) => (rows[0]! % 2 === 0 ? 'even' : 'odd') });
    const adds = [b.add([1]), b.add([3]), b.add([2]), b.add([4]), b.add([5])];
    await settle();
    expect(calls).toEqual([[1, 3], [2, 4]]);
    await Promise.all([b.flush(), ...adds]);
    expect(calls).toEqual([[1, 3], [2, 4], [5]]);
    expect(b.stats.inserts).toBe(3);
  });

  it('counts an item as the rows it declares (pre-encoded chunks)', async () => {
    const { calls, insert } = recorder();
    const b = batcher({ maxRows: 5, insert });
    const first = track(b.add([1], 3));
    await settle();
    expect(calls).toEqual([]);
    await Promise.all([b.add([2], 2), first]);
    expect(calls).toEqual([[1, 2]]);
    expect(b.stats.rows).toBe(5);
  });

  it('writes a partial block maxWaitMs after its first row', async () => {
    vi.useFakeTimers();
    const { calls, insert } = recorder();
    const b = batcher({ maxWaitMs: 100, insert });
    const a = track(b.add([1]));
    await vi.advanceTimersByTimeAsync(50);
    const c = track(b.add([2]));
    await vi.advanceTimersByTimeAsync(49);
    expect(calls).toEqual([]);
    // The timer started with the first row, not the latest one.
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([[1, 2]]);
    expect(a.settled && c.settled).toBe(true);
  });

  it('keeps a block whose wait is over taking rows while the block before it is written, then writes it at once', async () => {
    vi.useFakeTimers();
    const calls: number[][] = [];
    let release = () => {};
    const b = batcher({
      maxWaitMs: 100,
      insert: async (rows) => {
        calls.push([...rows]);
        if (calls.length === 1) await new Promise<void>((r) => (release = r));
      },
    });
    const first = track(b.add([1]));
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual([[1]]);
    const second = track(b.add([2]));
    // The second block's wait ends while the first is still being written: it stays open.
    await vi.advanceTimersByTimeAsync(150);
    const third = track(b.add([3]));
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([[1]]);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([[1], [2, 3]]);
    expect(first.settled && second.settled && third.settled).toBe(true);
  });

  it('writes as soon as maxPendingAdds adds are waiting', async () => {
    const { calls, insert } = recorder();
    const b = batcher({ maxPendingAdds: 3, insert });
    const p1 = b.add([1]);
    const p2 = b.add([2]);
    await settle();
    expect(calls).toEqual([]);
    await Promise.all([p1, p2, b.add([3])]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('resolves an add only after its rows are inserted', async () => {
    let release!: () => void;
    const inserted: number[][] = [];
    const b = batcher({
      maxRows: 1,
      insert: async (rows) => {
        await new Promise<void>((r) => (release = r));
        inserted.push(rows);
      },
    });
    const a = track(b.add([7]));
    await settle();
    expect(a.settled).toBe(false);
    release();
    await settle();
    expect(a.settled).toBe(true);
    expect(inserted).toEqual([[7]]);
  });

  it('writes blocks one after another, never two inserts at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const order: number[][] = [];
    const b = batcher({
      maxRows: 2,
      insert: async (rows) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 5));
        order.push(rows);
        running -= 1;
      },
    });
    await Promise.all([b.add([1, 2]), b.add([3, 4]), b.add([5]), b.flush()]);
    expect(maxRunning).toBe(1);
    expect(order).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('retries each add of a failed block alone, failing only the culprit', async () => {
    const { calls, insert } = recorder((rows) => rows.includes(13));
    const b = batcher({ maxPendingAdds: 3, insert });
    const results = await Promise.allSettled([b.add([1, 2]), b.add([13]), b.add([3])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(calls).toEqual([[1, 2, 13, 3], [1, 2], [13], [3]]);
    expect(b.stats).toEqual({ inserts: 2, rows: 3, isolatedRetries: 1 });
  });

  it('fails every add of a block at once when the failure is not one of theirs (storage down), without retrying each', async () => {
    const { calls, insert } = recorder(() => true);
    const b = batcher({ maxPendingAdds: 3, insert, isolates: () => false });
    const results = await Promise.allSettled([b.add([1, 2]), b.add([13]), b.add([3])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(calls).toEqual([[1, 2, 13, 3]]);
    expect(b.stats).toEqual({ inserts: 0, rows: 0, isolatedRetries: 0 });
  });

  it('rejects the add of a single-add block that fails, without retrying', async () => {
    const { calls, insert } = recorder(() => true);
    const b = batcher({ maxRows: 1, insert });
    await expect(b.add([1])).rejects.toThrow('bad rows 1');
    expect(calls).toEqual([[1]]);
    expect(b.stats).toEqual({ inserts: 0, rows: 0, isolatedRetries: 0 });
  });

  it('keeps writing later blocks after a failed one', async () => {
    const { calls, insert } = recorder((rows) => rows.includes(1));
    const b = batcher({ maxRows: 1, insert });
    const failed = b.add([1]).catch((e: unknown) => e);
    await b.add([2]);
    expect(await failed).toBeInstanceOf(Error);
    expect(calls).toEqual([[1], [2]]);
  });

  it('flush() with nothing pending does not insert', async () => {
    const { calls, insert } = recorder();
    const b = batcher({ insert });
    await b.flush();
    await b.add([]);
    expect(calls).toEqual([]);
    expect(b.stats.inserts).toBe(0);
  });

  it('flush() writes what is pending and cancels the wait timer', async () => {
    vi.useFakeTimers();
    const { calls, insert } = recorder();
    const b = batcher({ maxWaitMs: 100, insert });
    const a = b.add([1, 2]);
    await b.flush();
    await a;
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toEqual([[1, 2]]);
  });

  it('counts inserts and rows', async () => {
    const { insert } = recorder();
    const b = batcher({ maxRows: 3, insert });
    await Promise.all([b.add([1, 2]), b.add([3])]);
    await Promise.all([b.add([4]), b.flush()]);
    expect(b.stats).toEqual({ inserts: 2, rows: 4, isolatedRetries: 0 });
  });

  describe('blocks sized by the engine time of recent inserts', () => {
    /**
     * An engine that inserts `rowsPerMs` rows a millisecond: its write clock advances by each
     * insert's share, whatever the wall clock does. Records the rows of each insert.
     */
    function engine(rowsPerMs: number) {
      const blocks: number[] = [];
      let writeMs = 0;
      const insert = async (_items: number[], count: number) => {
        await Promise.resolve();
        blocks.push(count);
        writeMs += count / rowsPerMs;
      };
      return { blocks, insert, engineClock: () => writeMs };
    }

    it('closes a block at the rows the engine inserts within maxMs', async () => {
      const { blocks, insert, engineClock } = engine(10);
      const b = batcher({ maxRows: 50_000, insert, insertTime: { maxMs: 1_000, engineClock } });
      // Nothing learnt yet: the first block goes at maxRows (5 s of this engine).
      await b.add([1], 50_000);
      // 10 rows/ms for 1,000 ms: the next block closes at 10,000 rows.
      const first = track(b.add([2], 9_999));
      await settle();
      expect(blocks).toEqual([50_000]);
      expect(first.settled).toBe(false);
      await Promise.all([b.add([3], 1), first]);
      expect(blocks).toEqual([50_000, 10_000]);
    });

    it('follows the pace of the recent inserts as the engine speeds up', async () => {
      let rowsPerMs = 2;
      let writeMs = 0;
      const blocks: number[] = [];
      const insert = async (_items: number[], count: number) => {
        blocks.push(count);
        writeMs += count / rowsPerMs;
      };
      const b = batcher({ maxRows: 100_000, maxPendingAdds: 1_000, insert, insertTime: { maxMs: 1_000, engineClock: () => writeMs } });
      await b.add([1], 100_000);
      await b.add([2], 2_000); // 2 rows/ms: 2,000-row blocks
      rowsPerMs = 50;
      // Eight fast inserts fill the recent window: blocks grow back toward what 1 s holds.
      for (let i = 0; i < 8; i += 1) await Promise.all([b.add([3], 50_000), b.flush()]);
      expect(blocks.slice(0, 2)).toEqual([100_000, 2_000]);
      // 30,000 rows now wait for more (the limit is 50,000 again, no longer 2,000).
      const later = track(b.add([4], 30_000));
      await settle();
      expect(later.settled).toBe(false);
      await Promise.all([b.flush(), later]);
      expect(blocks.at(-1)).toBe(30_000);
    });

    it.each([
      ['keeps blocks of a very slow engine at 1,000 rows at least', { rowsPerMs: 0.1, maxMs: 1_000, block: 1_000 }],
      ['sizes by rows alone when maxMs is 0', { rowsPerMs: 0.1, maxMs: 0, block: 5_000 }],
    ])('%s', async (_, { rowsPerMs, maxMs, block }) => {
      const { blocks, insert, engineClock } = engine(rowsPerMs);
      const b = batcher({ maxRows: 5_000, insert, insertTime: { maxMs, engineClock } });
      await b.add([1], 5_000);
      const first = track(b.add([2], block - 1));
      await settle();
      expect(first.settled).toBe(false);
      await Promise.all([b.add([3], 1), first]);
      expect(blocks).toEqual([5_000, block]);
    });
  });
});
