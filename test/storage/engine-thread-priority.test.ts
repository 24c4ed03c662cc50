import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nicenessOf, openStorage, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';

let dir: string;
let storage: Storage;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-engine-nice-'));
  // ENGINE_THREADS_NICE is left at its default (10).
  storage = await openStorage(storageSettingsForTest(dir));
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** This process's threads, by name, with their nice values. */
function threads(): Array<{ tid: number; name: string; nice: number }> {
  return readdirSync('/proc/self/task').flatMap((entry) => {
    const tid = Number(entry);
    try {
      return [{ tid, name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), nice: nicenessOf(tid) }];
    } catch {
      return []; // ended meanwhile
    }
  });
}

describe.runIf(process.platform === 'linux')('the embedded engine threads’ priority', () => {
  it('runs the engine’s threads at the configured nice value and leaves Node’s own threads alone', async () => {
    // An insert and a parallel read make the engine start its pools' threads.
    await storage.client.command({ query: 'CREATE TABLE nice_probe (n UInt64) ENGINE = MergeTree ORDER BY n' });
    await storage.client.command({ query: 'INSERT INTO nice_probe SELECT number FROM numbers(2000000)' });
    await storage.client.query({ query: 'SELECT sum(sipHash64(n)) FROM nice_probe', format: 'JSONEachRow' }).then((r) => r.json());
    // The scan runs every second; threads started by the queries above are found by the next one.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const all = threads();
    // vitest titles its workers, and a thread takes its creator's name: Node's threads are
    // those named "node" or like the main thread.
    const nodeNames = new Set(['node', all.find((t) => t.tid === process.pid)!.name]);
    const engine = all.filter((t) => !nodeNames.has(t.name));
    expect(engine.length).toBeGreaterThan(3);
    // Every engine thread is lowered, except those the engine itself raised (its memory tracker runs below 0).
    expect(engine.filter((t) => t.nice >= 0 && t.nice !== 10)).toEqual([]);
    expect(engine.filter((t) => t.nice === 10).map((t) => t.name)).toEqual(expect.arrayContaining(['MergeMutate']));
    // Node's threads, the event loop first among them, keep the process's priority.
    expect(all.find((t) => t.tid === process.pid)?.nice).toBe(0);
    expect(all.filter((t) => nodeNames.has(t.name) && t.nice !== 0)).toEqual([]);
  });
});
