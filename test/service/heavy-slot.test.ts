import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Redis } from 'ioredis';
import { ApiError } from '@aos/http';
import { RateLimits } from '../../apps/query/src/guards/rate-limits.ts';

/**
 * A key's heavy-read slots are points of a Redis window as long as a read may hold one
 * (heavySlotSeconds); a read that ends gives its point back. A read that outlives the window
 * (waiting for the process's slots, several statements) must not give back a point that the
 * window's end already dropped: that pushed the count below zero, one slot more per stale
 * release, or freed a slot another read had taken in the next window.
 */
const SLOT_SECONDS = 1;

let redis: Redis;
beforeAll(async () => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
  // Connected, as a service's is: a limiter counts in memory while its connection is not ready.
  await redis.ping();
});
afterAll(() => redis?.quit());

function limits(keyHeavyConcurrency: number): RateLimits {
  return new RateLimits(redis, `test-${randomUUID()}`, { keyRequestsPerSecond: 0, projectRequestsPerSecond: 0, keyHeavyConcurrency }, SLOT_SECONDS);
}

/** The status a slot request ends with: 200 when it got one (the slot is kept), else the refusal's. */
async function take(rl: RateLimits, held: Array<() => void>): Promise<number> {
  try {
    held.push(await rl.holdHeavySlot('key-1'));
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
}

/** Past the end of the window the first point was counted in. */
const pastTheWindow = () => new Promise((r) => setTimeout(r, SLOT_SECONDS * 1000 + 500));

describe("a key's heavy-read slots", () => {
  it('refuse past the limit without keeping the refused attempt: a slot given back is free again', async () => {
    const rl = limits(2);
    const held: Array<() => void> = [];
    expect([await take(rl, held), await take(rl, held), await take(rl, held)]).toEqual([200, 200, 429]);
    held.shift()!();
    // The reward is sent without waiting; the next take must see it.
    await new Promise((r) => setTimeout(r, 100));
    expect(await take(rl, held)).toBe(200);
    expect(await take(rl, held)).toBe(429);
  });

  it('do not go below zero when a read gives its slot back after the window ended', async () => {
    const rl = limits(1);
    const held: Array<() => void> = [];
    expect(await take(rl, held)).toBe(200);
    await pastTheWindow();
    held.shift()!(); // a stale release: its point is gone with the window
    await new Promise((r) => setTimeout(r, 100));
    // One slot, so one read at a time: the second is refused.
    expect(await take(rl, held)).toBe(200);
    expect(await take(rl, held)).toBe(429);
  });

  it("do not free a slot of the next window's read when a stale one ends", async () => {
    const rl = limits(1);
    const held: Array<() => void> = [];
    expect(await take(rl, held)).toBe(200);
    await pastTheWindow();
    expect(await take(rl, held)).toBe(200); // a new read, counted in a new window
    held.shift()!(); // the first read ends late
    await new Promise((r) => setTimeout(r, 100));
    expect(await take(rl, held)).toBe(429);
  });
});
