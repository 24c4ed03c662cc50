import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from '@aos/http';
import type { RateLimitSettings } from '@aos/config';

/**
 * Per-key and per-project limits, counted in Redis so that every query process of a
 * deployment counts against the same numbers (a per-process count would multiply each
 * limit by the number of processes). While Redis is unreachable each process counts on its
 * own (rate-limiter-flexible's insurance limiter) rather than holding or refusing every read.
 */
export class RateLimits {
  private readonly perKey: RateLimiterAbstract | null;
  private readonly perProject: RateLimiterAbstract | null;
  private readonly heavyPerKey: RateLimiterAbstract | null;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly settings: RateLimitSettings,
    /** How long a heavy read may hold its slot at most (its time budget and a margin): a process
     *  that dies mid-read gives the slot back when this runs out. */
    private readonly heavySlotSeconds: number,
  ) {
    const limiter = (name: string, points: number, duration: number) =>
      points === 0
        ? null
        : new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${prefix}:rate:${name}`,
            points,
            duration,
            // The queue's connection queues commands while Redis is away rather than failing
            // them: without this a read would wait for Redis instead of being counted here.
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${prefix}:rate:${name}`, points, duration }),
          });
    this.perKey = limiter('key', settings.keyRequestsPerSecond, 1);
    this.perProject = limiter('project', settings.projectRequestsPerSecond, 1);
    this.heavyPerKey = limiter('heavy', settings.keyHeavyConcurrency, heavySlotSeconds);
  }

  /**
   * Counts a request of `keyId` (of `projectId`); a 429 with Retry-After once either limit
   * is spent. Returns the RateLimit-* headers of the key's limit to put on the answer.
   */
  async admit(keyId: string, projectId: string): Promise<Record<string, string>> {
    const project = this.perProject ? consume(this.perProject, projectId, 'this project', this.settings.projectRequestsPerSecond) : null;
    const key = this.perKey ? consume(this.perKey, keyId, 'this API key', this.settings.keyRequestsPerSecond) : null;
    const [, keyHeaders] = await Promise.all([project, key]);
    return keyHeaders ?? {};
  }

  /** Takes one of the key's heavy-read slots (429 when all are taken); the function returned gives it back. */
  async holdHeavySlot(keyId: string): Promise<() => void> {
    const limiter = this.heavyPerKey;
    if (!limiter) return () => {};
    const limit = this.settings.keyHeavyConcurrency;
    try {
      const taken = await limiter.consume(keyId);
      const windowEndsAt = performance.now() + taken.msBeforeNext;
      return () => void giveBack(limiter, keyId, windowEndsAt);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      // The refused attempt was counted too (the limiter counts before it compares): uncounted
      // at once, or every refusal would hold a slot until the window ends.
      void giveBack(limiter, keyId, performance.now() + err.msBeforeNext);
      // A slot frees when a read ends, which nothing here can time: one second is a fair guess.
      // After the RateLimit-* headers, whose Retry-After is the window's end (up to a minute).
      throw new ApiError('rate_limited', `this API key already runs ${limit} heavy reads at once; retry when one is done`, [], {
        ...headersOf(err, limit, this.heavySlotSeconds),
        'retry-after': '1',
      });
    }
  }
}

/**
 * A release arriving this close to its window's end is dropped: the window ends on Redis's
 * clock, and a reward that lands after it would count in the next window (a slot too many, or
 * another read's slot freed). The slot stays taken at most this much longer.
 */
const GIVE_BACK_MARGIN_MS = 250;

/**
 * Gives a point back to the window it was counted in, if that window is still running; a
 * window that has ended took the point with it. A reward that still landed in a new window
 * (Redis slow to answer) shows as a count below zero and is taken back.
 */
async function giveBack(limiter: RateLimiterAbstract, id: string, windowEndsAt: number): Promise<void> {
  if (performance.now() >= windowEndsAt - GIVE_BACK_MARGIN_MS) return;
  try {
    const after = await limiter.reward(id);
    if (after.consumedPoints < 0) await limiter.penalty(id, -after.consumedPoints);
  } catch {
    // Redis and the insurance limiter both failed: the point lapses with its window.
  }
}

/** Consumes a point; the headers on success, a 429 naming `who` when none is left. */
async function consume(limiter: RateLimiterAbstract, id: string, who: string, limit: number): Promise<Record<string, string>> {
  try {
    return headersOf(await limiter.consume(id), limit, 1);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const headers = headersOf(err, limit, 1);
    throw new ApiError('rate_limited', `${who} sent more than ${limit} requests in a second; retry after ${headers['retry-after']} s`, [], headers);
  }
}

/**
 * Retry-After, and the IETF draft's RateLimit-Limit / -Remaining / -Reset (seconds until
 * the window resets) and RateLimit-Policy (`<limit>;w=<window seconds>`).
 */
function headersOf(res: RateLimiterRes, limit: number, windowSeconds: number): Record<string, string> {
  const reset = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'ratelimit-reset': reset,
    'ratelimit-policy': `${limit};w=${windowSeconds}`,
    ...(res.remainingPoints < 0 || res.consumedPoints > limit ? { 'retry-after': reset } : {}),
  };
}
