/**
 * Collects rows from many concurrently processed jobs into few large inserts.
 * A block is written when it reaches `maxRows`, when every job slot is waiting on it
 * (no more rows can arrive), or `maxWaitMs` after its first row, whichever comes first.
 * Each `add` resolves only once its own rows are stored, so a job is acknowledged after
 * its data is durable and never before.
 */
export interface InsertBatcherOptions<T> {
  maxRows: number;
  maxWaitMs: number;
  /** How many `add` calls can be waiting at once (the worker's concurrency). */
  maxPendingAdds: number;
  /** Writes one block; `count` is the number of table rows it holds. */
  insert(rows: T[], count: number): Promise<void>;
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
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();
  readonly stats = { inserts: 0, rows: 0, isolatedRetries: 0 };

  constructor(private readonly opts: InsertBatcherOptions<T>) {}

  /** Queues items for the next block; `count` is the number of table rows they hold. */
  add(rows: T[], count = rows.length): Promise<void> {
    if (rows.length === 0 || count === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ rows, count, resolve, reject });
      this.#pendingRows += count;
      if (this.#pendingRows >= this.opts.maxRows || this.#pending.length >= this.opts.maxPendingAdds) {
        this.flush();
      } else {
        this.#timer ??= setTimeout(() => this.flush(), this.opts.maxWaitMs);
      }
    });
  }

  /** Writes what is pending now; resolves when that block and every earlier one is done. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const block = this.#pending;
    this.#pending = [];
    this.#pendingRows = 0;
    // Blocks go one after another: the engine parallelises one big insert better than
    // several small ones, and ordering keeps memory bounded.
    this.#flushing = this.#flushing.then(() => this.#write(block));
    return this.#flushing;
  }

  async #write(block: Pending<T>[]): Promise<void> {
    if (block.length === 0) return;
    const rows = block.length === 1 ? block[0]!.rows : block.flatMap((p) => p.rows);
    const count = block.reduce((n, p) => n + p.count, 0);
    try {
      await this.opts.insert(rows, count);
      this.stats.inserts += 1;
      this.stats.rows += count;
      for (const p of block) p.resolve();
    } catch (err) {
      if (block.length === 1) {
        block[0]!.reject(err);
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
