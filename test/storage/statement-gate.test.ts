import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '@aos/storage';
import { createStatementGate } from '../../packages/storage/src/client/statement-gate.ts';
import { storageSettingsForTest } from '../support/storage.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aos-gate-'));
let storage: Storage;
/** A second session on the same engine, for a gate of the test's own (with a short bound). */
let raw: ChdbConnection;

beforeAll(async () => {
  storage = await openStorage(storageSettingsForTest(dir));
  await storage.client.command({ query: 'CREATE TABLE gate_rows (n UInt64, s String) ENGINE = MergeTree ORDER BY n' });
  // The first insert reads the table's structure (a read); later ones go straight to their insert.
  await storage.insertRows('gate_rows', ['n', 's'], 'JSONCompactEachRow', rowsText(1, 1, 0));
  raw = createChdbConnection({ path: path.join(dir, 'clickhouse') });
});
afterAll(async () => {
  await raw?.close();
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `count` rows of ~`bytes` each, as JSONCompactEachRow text. */
const rowsText = (count: number, bytes: number, from: number) =>
  Array.from({ length: count }, (_, i) => JSON.stringify([from + i, 'x'.repeat(bytes)])).join('\n') + '\n';

/** Runs `work`, then records `label` in `done`: the order in which statements finished. */
const finish = (done: string[], label: string, work: Promise<unknown>) => work.then(() => done.push(label));

describe('the embedded engine statement gate', () => {
  it('runs a read issued while inserts wait before those inserts', async () => {
    const done: string[] = [];
    // An insert that holds the engine long enough for everything below to queue behind it.
    const holding = finish(done, 'holding', storage.client.command({ query: 'INSERT INTO gate_rows SELECT number, toString(sleepEachRow(1.5)) FROM numbers(1)' }));
    // More inserts than libuv has threads (4): without the gate the read would queue behind some of them there.
    const inserts = [1, 2, 3, 4, 5, 6].map((i) => finish(done, `insert ${i}`, storage.insertRows('gate_rows', ['n', 's'], 'JSONCompactEachRow', rowsText(10_000, 100, i * 100_000))));
    // Asked for once the inserts are in line (each writes its file first: a second is ample on a busy machine).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(storage.statements!.readWaitOnWritesMs()).toBe(0);
    const read = finish(done, 'read', storage.client.query({ query: 'SELECT count() FROM gate_rows', format: 'JSONEachRow' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The read waits for its turn behind the holding insert, and the gate says so.
    expect(storage.statements!.readWaitOnWritesMs()).toBeGreaterThan(0);
    await Promise.all([holding, read, ...inserts]);
    // The inserts among themselves go in the order their files were written, which may vary.
    expect(done.slice(0, 2)).toEqual(['holding', 'read']);
    expect(done.slice(2).sort()).toEqual(['insert 1', 'insert 2', 'insert 3', 'insert 4', 'insert 5', 'insert 6']);
    expect(storage.statements!.readWaitOnWritesMs()).toBe(0);
    // The writes' engine time: the holding insert's 1.5 s at least.
    expect(storage.statements!.writeRunMs()).toBeGreaterThanOrEqual(1_500);
    const [count] = await (await storage.client.query({ query: 'SELECT count() AS n FROM gate_rows', format: 'JSONEachRow' })).json<{ n: string }>();
    expect(Number(count!.n)).toBe(60_002);
  });

  it('lets a write that waited longer than its bound go before waiting reads', async () => {
    const gate = createStatementGate(300);
    const done: string[] = [];
    const read = (i: number) => finish(done, `read ${i}`, gate.run('read', () => raw.chdb.queryAsync('SELECT sleep(0.1)')));
    // Two reads always in line: without the bound, the write would wait for all twenty.
    const reads: Promise<unknown>[] = [read(0), read(1)];
    const write = finish(done, 'write', gate.run('write', () => raw.chdb.queryAsync('SELECT 1 FORMAT Null')));
    for (let i = 2; i < 20; i += 1) {
      await reads[reads.length - 2];
      reads.push(read(i));
    }
    await Promise.all([write, ...reads]);
    const writeAt = done.indexOf('write');
    // ~300 ms of reads (each 100 ms) went first, then the write, then the rest of the reads.
    expect(writeAt).toBeGreaterThanOrEqual(2);
    expect(writeAt).toBeLessThan(8);
  });

  it('counts the time reads wait behind writes only, not behind other reads', async () => {
    const gate = createStatementGate();
    const heavyRead = gate.run('read', () => raw.chdb.queryAsync('SELECT sleep(0.5)'));
    const behindRead = gate.run('read', () => raw.chdb.queryAsync('SELECT 1'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gate.readWaitOnWritesMs()).toBe(0);
    await Promise.all([heavyRead, behindRead]);
    const write = gate.run('write', () => raw.chdb.queryAsync('SELECT sleep(0.5)'));
    const behindWrite = gate.run('read', () => raw.chdb.queryAsync('SELECT 1'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gate.readWaitOnWritesMs()).toBeGreaterThanOrEqual(250);
    await Promise.all([write, behindWrite]);
    expect(gate.readWaitOnWritesMs()).toBe(0);
    expect(gate.writeRunMs()).toBeGreaterThanOrEqual(500);
  });

  it('takes a read whose request was aborted out of line before it runs', async () => {
    const gate = createStatementGate();
    const holding = gate.run('write', () => raw.chdb.queryAsync('SELECT sleep(0.3)'));
    const abort = new AbortController();
    let ran = false;
    const read = gate.run(
      'read',
      async () => {
        ran = true;
        return raw.chdb.queryAsync('SELECT 1');
      },
      abort.signal,
    );
    abort.abort(new Error('client gone'));
    await expect(read).rejects.toThrow('client gone');
    await holding;
    expect(ran).toBe(false);
    expect(gate.readWaitOnWritesMs()).toBe(0);
  });
});
