import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetExceeded, budgetedStorage, openStorage, runWithBudget, type QueryBudget, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';

let dir: string;
let storage: Storage;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-read-budget-'));
  storage = await openStorage(storageSettingsForTest(dir));
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

const NO_LIMITS: QueryBudget = { timeoutSeconds: 0, maxRowsToRead: 0, maxBytesToRead: 0, maxMemoryBytes: 0 };
/** Most of a minute of hashing on this machine, unless a budget stops it. */
const HEAVY = 'SELECT max(sipHash64(number)) AS m FROM numbers(999999999) WHERE number > {from:UInt64}';

async function outcome(run: () => Promise<unknown>): Promise<{ error: unknown; endedAt: number }> {
  try {
    await run();
    return { error: null, endedAt: performance.now() };
  } catch (error) {
    return { error, endedAt: performance.now() };
  }
}

describe('read budgets on the embedded engine', () => {
  const budgeted = () => budgetedStorage(storage);
  const count = (client: Storage['client']) =>
    client.query({ query: 'SELECT count() AS c FROM numbers(1000) WHERE number >= {from:UInt64}', query_params: { from: 0 }, format: 'JSONEachRow' }).then((r) => r.json());

  it('stops a statement at its row budget, and only statements of a budgeted request', async () => {
    const { error } = await outcome(() => runWithBudget({ ...NO_LIMITS, maxRowsToRead: 10 }, undefined, () => count(budgeted().client)));
    expect(budgetExceeded(error)).toBe('too_expensive');
    // The same statement outside a request, and the next one on the same session, run as they are: the limit was the statement's own.
    expect(await count(budgeted().client)).toEqual([{ c: '1000' }]);
    expect(await count(storage.client)).toEqual([{ c: '1000' }]);
  });

  it('stops a statement at its time budget', async () => {
    const started = performance.now();
    const { error, endedAt } = await outcome(() =>
      runWithBudget({ ...NO_LIMITS, timeoutSeconds: 1 }, undefined, () => budgeted().client.query({ query: HEAVY, query_params: { from: 1 } })),
    );
    expect(budgetExceeded(error)).toBe('timeout');
    expect(endedAt - started).toBeLessThan(4000);
  });

  // Why each statement needs its own time budget on the embedded engine: the service's
  // one chDB session runs one statement at a time, so a cheap statement sent while a heavy
  // one runs waits for it to end, with or without bound parameters.
  it('runs one statement at a time (measured)', async () => {
    const started = performance.now();
    const heavy = outcome(() => runWithBudget({ ...NO_LIMITS, timeoutSeconds: 2 }, undefined, () => budgeted().client.query({ query: HEAVY, query_params: { from: 1 } })));
    await new Promise((r) => setTimeout(r, 200));
    const plain = outcome(() => storage.client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' }).then((r) => r.text()));
    // Read as text: answers of statements run side by side on one session are only timed here.
    const bound = outcome(() => storage.client.query({ query: 'SELECT {n:UInt8} AS n', query_params: { n: 1 }, format: 'JSONEachRow' }).then((r) => r.text()));
    const [h, p, b] = await Promise.all([heavy, plain, bound]);
    expect(budgetExceeded(h.error)).toBe('timeout');
    expect(p.error).toBeNull();
    expect(b.error).toBeNull();
    // Sent 200 ms in, both answer only once the heavy one has been stopped, about 2 s in.
    expect(Math.min(p.endedAt, b.endedAt)).toBeGreaterThanOrEqual(h.endedAt - 50);
    expect(Math.min(p.endedAt, b.endedAt) - started).toBeGreaterThan(1500);
  });
});
