import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '@aos/storage';
import { StatementLineClosedError, createStatementLine } from '../../packages/storage/src/client/engine-sessions.ts';
import { storageSettingsForTest } from '../support/storage.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aos-sessions-'));
let storage: Storage;
/** A session of the test's own on the same engine, for lines of the test's own. */
let raw: ChdbConnection;

beforeAll(async () => {
  storage = await openStorage(storageSettingsForTest(dir));
  await storage.client.command({ query: 'CREATE TABLE session_rows (n UInt64, s String) ENGINE = MergeTree ORDER BY n' });
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

const countRows = async () => {
  const [row] = await (await storage.client.query({ query: 'SELECT count() AS n FROM session_rows', format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(row!.n);
};

describe('the embedded engine sessions', () => {
  it('answers a read while an insert holds the write session, and reads what was written at once', async () => {
    const done: string[] = [];
    // A real write that holds its session for 1.5 s, as a large insert does, and inserts queued behind it.
    const holding = finish(done, 'holding', storage.client.command({ query: 'INSERT INTO session_rows SELECT number, toString(sleepEachRow(1.5)) FROM numbers(1)' }));
    const inserts = [1, 2, 3].map((i) => finish(done, `insert ${i}`, storage.insertRows('session_rows', ['n', 's'], 'JSONCompactEachRow', rowsText(10_000, 100, i * 100_000))));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // On one session this read would wait for the holding insert (and, in no set order, the others).
    const read = finish(done, 'read', countRows());
    await Promise.all([holding, read, ...inserts]);
    expect(done[0]).toBe('read');
    expect(done.slice(1, 2)).toEqual(['holding']);
    // Rows written on the write session are there for the read session as soon as the insert answered.
    expect(await countRows()).toBe(30_001);
    // The writes' engine time: the holding insert's 1.5 s at least.
    expect(storage.statements!.runMs('write')).toBeGreaterThanOrEqual(1_500);
    // A read runs on the read session's clock only.
    const [readBefore, writeBefore] = [storage.statements!.runMs('read'), storage.statements!.runMs('write')];
    await (await storage.client.query({ query: 'SELECT sleep(0.5)', format: 'JSONEachRow' })).json();
    expect(storage.statements!.runMs('read') - readBefore).toBeGreaterThanOrEqual(500);
    expect(storage.statements!.runMs('write')).toBe(writeBefore);
  });

  it("puts a request's read before the background reads waiting, and writes through the background storage on the write session", async () => {
    const clock = storage.statements!;
    const background = storage.background!;
    const done: string[] = [];
    const backgroundBefore = clock.runMs('read', 'background');
    // A request's read holding the read session, then a background read and a request's read asking, in that order.
    const holding = finish(done, 'holding', storage.client.query({ query: 'SELECT sleep(0.5)', format: 'JSONEachRow' }).then((r) => r.json()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const passed = finish(done, 'background', background.client.query({ query: 'SELECT sleep(0.2)', format: 'JSONEachRow' }).then((r) => r.json()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const read = finish(done, 'read', countRows());
    await Promise.all([holding, passed, read]);
    // In a first-come line the background read would have gone second.
    expect(done).toEqual(['holding', 'read', 'background']);
    expect(clock.runMs('read', 'background') - backgroundBefore).toBeGreaterThanOrEqual(200);
    // The background storage's writes go to the write session, and its reads see them at once.
    const writeBefore = clock.runMs('write');
    await background.client.command({ query: 'INSERT INTO session_rows SELECT 900000 + number, toString(sleepEachRow(0.2)) FROM numbers(1)' });
    expect(clock.runMs('write') - writeBefore).toBeGreaterThanOrEqual(200);
    const [row] = await (await background.client.query({ query: 'SELECT count() AS c FROM session_rows WHERE n >= 900000', format: 'JSONEachRow' })).json<{ c: string }>();
    expect(row).toEqual({ c: '1' });
  });

  it('holds the session settings for the background storage too', async () => {
    // USE and SET are remembered per session: a read would otherwise miss the database and print numbers unquoted.
    for (const { client } of [storage, storage.background!]) {
      const [row] = await (await client.query({ query: 'SELECT currentDatabase() AS db, toUInt64(7) AS n', format: 'JSONEachRow' })).json<{ db: string; n: unknown }>();
      expect(row).toEqual({ db: storageSettingsForTest(dir).database, n: '7' });
    }
  });

  it('runs background statements after the requests waiting, a grace after the last request, or once passed over too long', async () => {
    const line = createStatementLine({ graceMs: 150, maxWaitMs: 600 });
    const done: string[] = [];
    const run = (label: string, seconds: number, priority: 'request' | 'background') => finish(done, label, line.run(() => raw.chdb.queryAsync(`SELECT sleep(${seconds})`), { priority }));
    const holding = run('r0', 0.2, 'request');
    const b1 = run('b1', 0.05, 'background');
    const r1 = run('r1', 0.05, 'request');
    await Promise.all([holding, r1]);
    // r1 ended a moment ago: b1 waits out the grace, and a request asking within it goes first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await run('r2', 0.05, 'request');
    await b1;
    expect(done).toEqual(['r0', 'r1', 'r2', 'b1']);
    // Requests asking back to back, each as the last ends, for 1.5 s: the background statement goes after 600 ms of them.
    done.length = 0;
    const until = performance.now() + 1_500;
    const chain = (async () => {
      for (let i = 0; performance.now() < until; i++) await run(`r${i}`, 0.1, 'request');
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const asked = performance.now();
    let ranAfter = 0;
    const b2 = finish(done, 'b2', line.run(() => ((ranAfter = performance.now() - asked), raw.chdb.queryAsync('SELECT 1')), { priority: 'background' }));
    await Promise.all([chain, b2]);
    expect(ranAfter).toBeGreaterThanOrEqual(550);
    expect(done.indexOf('b2')).toBeLessThan(done.length - 2);
    // The clocks by priority add up to the line's.
    expect(line.runMs('request') + line.runMs('background')).toBeCloseTo(line.runMs(), 6);
    expect(line.runMs('background')).toBeGreaterThan(40);
  });

  it('refuses the statements still waiting when the line closes, a background one in its grace too, and starts none of them', async () => {
    const line = createStatementLine({ graceMs: 300, maxWaitMs: 1_000 });
    await line.run(() => raw.chdb.queryAsync('SELECT 1'));
    let started = 0;
    const waiting = line.run(() => ((started += 1), raw.chdb.queryAsync('SELECT 1')), { priority: 'background' });
    line.close();
    await expect(waiting).rejects.toThrow(StatementLineClosedError);
    await expect(line.run(() => ((started += 1), raw.chdb.queryAsync('SELECT 1')))).rejects.toThrow(StatementLineClosedError);
    // Past the grace: the closed line's timer started nothing.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(started).toBe(0);
  });

  it('runs a line one statement at a time, in the order asked for', async () => {
    const line = createStatementLine();
    const done: string[] = [];
    // The engine's own lock lets whichever libuv thread comes first go next.
    const all = [0, 1, 2, 3, 4, 5].map((i) => finish(done, `s${i}`, line.run(() => raw.chdb.queryAsync(`SELECT sleep(${i % 2 ? 0.05 : 0.15})`))));
    await Promise.all(all);
    expect(done).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
  });

  it('clocks the time statements ran, not the time they waited for their turn', async () => {
    const line = createStatementLine();
    const first = line.run(() => raw.chdb.queryAsync('SELECT sleep(0.5)'));
    const second = line.run(() => raw.chdb.queryAsync('SELECT 1'));
    await Promise.all([first, second]);
    // Counting the second statement's wait would make it 1,000 ms or more.
    expect(line.runMs()).toBeGreaterThanOrEqual(500);
    expect(line.runMs()).toBeLessThan(950);
  });

  it('takes a statement whose request was aborted out of line before it runs', async () => {
    const line = createStatementLine();
    const holding = line.run(() => raw.chdb.queryAsync('SELECT sleep(0.3)'));
    const abort = new AbortController();
    let ran = false;
    const read = line.run(async () => {
      ran = true;
      return raw.chdb.queryAsync('SELECT 1');
    }, { signal: abort.signal });
    abort.abort(new Error('client gone'));
    await expect(read).rejects.toThrow('client gone');
    await holding;
    expect(ran).toBe(false);
  });
});
