/**
 * At most `limit` runs at once per key (an evaluator id) in this process, so one busy
 * evaluator cannot flood its model endpoint, and waiting runs start in arrival order.
 */
export class KeyedLimiter {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  async run<T>(key: string, limit: number, work: () => Promise<T>): Promise<T> {
    if ((this.running.get(key) ?? 0) >= limit) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key) ?? [];
        queue.push(resolve);
        this.waiting.set(key, queue);
      });
    } else {
      this.running.set(key, (this.running.get(key) ?? 0) + 1);
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.get(key)?.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else {
        const left = (this.running.get(key) ?? 1) - 1;
        if (left === 0) this.running.delete(key);
        else this.running.set(key, left);
        this.waiting.delete(key);
      }
    }
  }

  /** Runs going on for a key (for tests and metrics). */
  active(key: string): number {
    return this.running.get(key) ?? 0;
  }
}
