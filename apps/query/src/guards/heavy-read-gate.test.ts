import { describe, expect, it } from 'vitest';
import { ApiError } from '@aos/http';
import { HeavyReadGate } from './heavy-read-gate.ts';

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
};

describe('HeavyReadGate', () => {
  it('runs up to the per-project limit at once, then queues that project only', async () => {
    const gate = new HeavyReadGate({ total: 3, perProject: 1, queueTimeoutMs: 1000 });
    const first = await gate.acquire('a');
    let secondIn = false;
    const second = gate.acquire('a').then((release) => ((secondIn = true), release));
    // Another project is not held up by a's queue.
    const other = await gate.acquire('b');
    await new Promise((r) => setTimeout(r, 20));
    expect(secondIn).toBe(false);
    first();
    (await second)();
    expect(secondIn).toBe(true);
    other();
  });

  it("answers 429 past the queue timeout when the project's own slots are taken", async () => {
    const gate = new HeavyReadGate({ total: 5, perProject: 1, queueTimeoutMs: 50 });
    const held = await gate.acquire('a');
    const started = Date.now();
    const err = await refusal(gate.acquire('a'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(err.status).toBe(429);
    expect(err.headers['retry-after']).toBe('1');
    held();
  });

  it('answers 503 past the queue timeout when the process is full of other projects', async () => {
    const gate = new HeavyReadGate({ total: 1, perProject: 1, queueTimeoutMs: 30 });
    const held = await gate.acquire('a');
    const err = await refusal(gate.acquire('b'));
    expect(err.status).toBe(503);
    expect(err.code).toBe('unavailable');
    held();
    // The slot is free again, and a waiter that gave up holds none.
    (await gate.acquire('b'))();
  });

  it('lets a waiter whose client went away leave the queue', async () => {
    const gate = new HeavyReadGate({ total: 1, perProject: 1, queueTimeoutMs: 10_000 });
    const held = await gate.acquire('a');
    const controller = new AbortController();
    const waiting = gate.acquire('a', controller.signal);
    controller.abort();
    await refusal(waiting);
    held();
    (await gate.acquire('a'))();
  });
});
