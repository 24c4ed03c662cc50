import { createInsertPace, type InsertPace } from './insert-pace.ts';

/**
 * Collects rows from many concurrently processed jobs into few large inserts.
 * A block is written when it reaches `maxRows` or the rows the engine's recent pace inserts
 * within `maxInsertMs` (insert-pace.ts), when every job slot is waiting on it
 * (no more rows can arrive), or `maxWaitMs` after its first row, whichever comes first;
 * but a block whose wait is over while the one before it is still being written keeps
 * taking rows until that write ends, as it could not start sooner: blocks then grow with
 * the engine's pace instead of staying at `maxWaitMs` of arrivals (the engine's cost per
 * row falls with rows per insert: docs/benchmarks.md, "Engine write").
 * Each `add` resolves only once its own rows are stored, so a job is acknowledged after
 * its data is durable and never before. With `kindOf`, items of different kinds never share
 * a block (one insert holds one row format).
 */
export interface InsertBatcherOptions<T> {
  maxRows: number;
  maxWaitMs: number;
  /** How many `add` calls can be waiting at once (the worker's concurrency). */
  maxPendingAdds: number;
  /** Writes one block; `count` is the number of table rows it holds. */
  insert(rows: T[], count: number): Promise<void>;
  /**
   * Whether a failed block is written again job by job to find the culprit (the default);
   * a failure no job caused (storage is down) fails every job of the block at once instead.
   */
  isolates?(err: unknown): boolean;
  /** Blocks sized by the engine's time as well (insert-pace.ts); without it, by rows alone. */
  insertTime?: InsertTimeLimit;
  /** The kind of an add's items (all of one kind): an add of another kind than the pending block's writes that block first. */
  kindOf?(rows: readonly T[]): string;
}

export interface InsertTimeLimit {
  /** The engine time one insert should take at most (WRITER_BATCH_MAX_INSERT_MS). */
  maxMs: number;
  /**
   * A clock of the engine's write time in ms (the embedded engine's statement gate): read
   * around an insert it gives the time the insert held the engine, not the time it waited
   * for reads to go first. Writes of other tables run in the same window are counted too,
   * which errs toward smaller blocks while the engine is busy.
   */
  engineClock(): number;
}

interface Pending<T> {
  rows: T[];
  /** How many table rows `rows` stand for (items may be pre-encoded chunks of many rows). */
  count: number;
  resolve(): void;
  reject(err: unknown): void;
}

export class InsertBatcher<T> {
  #pending: Pending<T>[] = [];
  #pendingRows = 0;
  #pendingKind: string | undefined;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();
  /** Blocks handed to the engine and not finished yet. */
  #writing = 0;
  /** The pending block's wait is over; it is written as soon as the engine is free. */
  #due = false;
  readonly stats = { inserts: 0, rows: 0, isolatedRetries: 0 };
  readonly #pace: InsertPace;
  /** The engine's write clock; a stopped one when blocks go by rows alone (the pace then ignores it). */
  readonly #engineClock: () => number;

  constructor(private readonly opts: InsertBatcherOptions<T>) {
    this.#pace = createInsertPace(opts.insertTime?.maxMs ?? 0, opts.maxRows);
    this.#engineClock = opts.insertTime?.engineClock ?? (() => 0);
  }

  /** Queues items for the next block; `count` is the number of table rows they hold. */
  add(rows: T[], count = rows.length): Promise<void> {
    if (rows.length === 0 || count === 0) return Promise.resolve();
    const kind = this.opts.kindOf?.(rows);
    if (this.#pending.length > 0 && kind !== this.#pendingKind) void this.flush();
    this.#pendingKind = kind;
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ rows, count, resolve, reject });
      this.#pendingRows += count;
      if (this.#pendingRows >= this.#pace.blockRows() || this.#pending.length >= this.opts.maxPendingAdds) {
        this.flush();
      } else if (!this.#due) {
        this.#timer ??= setTimeout(() => this.#waitOver(), this.opts.maxWaitMs);
      }
    });
  }

  #waitOver(): void {
    this.#timer = null;
    if (this.#writing > 0) this.#due = true;
    else void this.flush();
  }

  /** Writes what is pending now; resolves when that block and every earlier one is done. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#due = false;
    const block = this.#pending;
    this.#pending = [];
    this.#pendingRows = 0;
    this.#writing += 1;
    // Blocks go one after another: the engine parallelises one big insert better than
    // several small ones, and ordering keeps memory bounded.
    this.#flushing = this.#flushing.then(async () => {
      try {
        await this.#write(block);
      } finally {
        this.#writing -= 1;
        if (this.#due && this.#writing === 0) void this.flush();
      }
    });
    return this.#flushing;
  }

  async #write(block: Pending<T>[]): Promise<void> {
    if (block.length === 0) return;
    const rows = block.length === 1 ? block[0]!.rows : block.flatMap((p) => p.rows);
    const count = block.reduce((n, p) => n + p.count, 0);
    try {
      const started = this.#engineClock();
      await this.opts.insert(rows, count);
      this.#pace.record(count, this.#engineClock() - started);
      this.stats.inserts += 1;
      this.stats.rows += count;
      for (const p of block) p.resolve();
    } catch (err) {
      if (block.length === 1 || this.opts.isolates?.(err) === false) {
        for (const p of block) p.reject(err);
        return;
      }
      // One bad job must not fail the jobs it shared a block with: write each alone,
      // so only the culprit fails (and is retried or dead-lettered on its own).
      this.stats.isolatedRetries += 1;
      for (const p of block) {
        try {
          await this.opts.insert(p.rows, p.count);
          this.stats.inserts += 1;
          this.stats.rows += p.count;
          p.resolve();
        } catch (e) {
          p.reject(e);
        }
      }
    }
  }
}
