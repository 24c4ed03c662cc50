import { ApiError } from '@aos/http';

export interface HeavyReadGateOptions {
  /** Heavy reads this process runs at once, all projects together. */
  total: number;
  /** Heavy reads one project runs at once in this process. */
  perProject: number;
  /** How long a read waits for a slot before it is turned away. */
  queueTimeoutMs: number;
}

interface Waiter {
  projectId: string;
  grant: () => void;
}

/**
 * Slots for heavy reads (the ones that scan a window): a read waits, first come first
 * served, for a slot of its project and one of the process; past the queue timeout it is
 * answered 429 when its own project holds all its slots, else 503, both with Retry-After.
 * So one project's burst of summaries queues behind itself while other projects' reads and
 * every cheap request go on.
 */
export class HeavyReadGate {
  private running = 0;
  private readonly perProject = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: HeavyReadGateOptions) {}

  /** Waits for a slot; the returned function gives it back (call it once, when the read is done). */
  async acquire(projectId: string, signal?: AbortSignal): Promise<() => void> {
    // Slots freed are handed to waiters at once (admit), so a free slot here is no waiter's.
    if (this.fits(projectId)) return this.take(projectId);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        projectId,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', leave);
          resolve(this.take(projectId));
        },
      };
      const leave = () => {
        clearTimeout(timer);
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(this.refusal(projectId));
      };
      const timer = setTimeout(leave, this.options.queueTimeoutMs);
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private fits(projectId: string): boolean {
    return this.running < this.options.total && (this.perProject.get(projectId) ?? 0) < this.options.perProject;
  }

  private take(projectId: string): () => void {
    this.running++;
    this.perProject.set(projectId, (this.perProject.get(projectId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = this.perProject.get(projectId)! - 1;
      if (left === 0) this.perProject.delete(projectId);
      else this.perProject.set(projectId, left);
      this.admit();
    };
  }

  /** Grants freed slots to the first waiters that fit (a waiter of a busy project does not hold up others). */
  private admit(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.options.total; ) {
      const waiter = this.waiting[i]!;
      if (!this.fits(waiter.projectId)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      waiter.grant();
    }
  }

  private refusal(projectId: string): ApiError {
    const retryAfter = String(Math.max(1, Math.ceil(this.options.queueTimeoutMs / 1000)));
    if ((this.perProject.get(projectId) ?? 0) >= this.options.perProject) {
      return new ApiError('rate_limited', `this project already runs ${this.options.perProject} heavy reads at once; retry when one is done`, [], {
        'retry-after': retryAfter,
      });
    }
    return new ApiError('unavailable', 'the service is busy with other heavy reads; retry later', [], { 'retry-after': retryAfter });
  }
}
