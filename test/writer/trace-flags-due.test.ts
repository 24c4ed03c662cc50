import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writerSettings } from '@aos/config';
import { findDueTraces, migrate, openStorage, type Storage } from '@aos/storage';
import { createDueCursor, runTraceFlagsPass } from '@aos/writer';
import { storageSettingsForTest } from '../support/storage.ts';
import { insertTraceSpans } from '../support/trace-spans.ts';

// The flags pass finds due traces in trace_writes (migration 0025), a row per trace per
// inserted block stamped with when it landed, walked forward from where the last pass got
// to. Spans go straight into the spans table (its view writes trace_writes); where a test
// needs writes that landed hours ago, it writes them into trace_writes itself.
let dir: string;
let storage: Storage;

const HOUR = 3_600_000;
const rules = writerSettings({}).traceFlagRules;
const traceId = (n: number) => n.toString(16).padStart(32, '0');
const pass = (opts: { cursor?: ReturnType<typeof createDueCursor>; batchSize?: number; budgetMs?: number } = {}) =>
  runTraceFlagsPass(storage, { rules, quietMs: 0, ...opts });

async function flagsRow(projectId: string, id: string) {
  const result = await storage.client.query({
    query: `SELECT flags, spans_ingested_at, toUnixTimestamp64Milli(spans_landed_at) AS landed
            FROM trace_flags FINAL WHERE project_id = {p:String} AND trace_id = {t:String}`,
    query_params: { p: projectId, t: id },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ flags: string[]; spans_ingested_at: string; landed: string }>();
  return row ? { flags: row.flags, spansIngestedAt: Number(row.spans_ingested_at), landedMs: Number(row.landed) } : null;
}

/** Replaces the log of writes with these: trace, and when its write landed. */
async function setWrites(writes: ReadonlyArray<{ projectId: string; traceId: string; landedMs: number }>): Promise<void> {
  await storage.client.command({ query: 'TRUNCATE TABLE trace_writes' });
  if (writes.length === 0) return;
  await storage.client.insert({
    table: 'trace_writes',
    values: writes.map((w) => ({ project_id: w.projectId, trace_id: w.traceId, landed_at: (w.landedMs / 1000).toFixed(3) })),
    format: 'JSONEachRow',
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-flags-due-'));
  storage = await openStorage(storageSettingsForTest(dir));
  await migrate(storage);
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the flags pass walking the log of writes', () => {
  it('judges a trace again when a write lands after its flags, though its spans were received earlier', async () => {
    const cursor = createDueCursor();
    const id = traceId(1);
    const now = Date.now();
    await insertTraceSpans(storage, 'late', id, [now - 60_000, now - 59_000]);
    expect((await pass({ cursor })).traces).toBe(1);
    const first = (await flagsRow('late', id))!;
    expect(first.landedMs).toBeGreaterThan(now - 60_000);

    // A batch received an hour ago, held back by a fault, lands now: by ingested_at alone
    // (the rule before the log of writes) the trace was judged on newer spans already.
    await insertTraceSpans(storage, 'late', id, [now - 58_000], 3, now - HOUR);
    expect(now - HOUR).toBeLessThan(first.spansIngestedAt);
    const again = await pass({ cursor });
    expect(again.traces).toBe(1);
    expect((await flagsRow('late', id))!.landedMs).toBeGreaterThan(first.landedMs);
    expect((await pass({ cursor })).traces).toBe(0);
  });

  it('judges in one pass more due traces than one search returns', async () => {
    const now = Date.now();
    for (let n = 0; n < 25; n++) await insertTraceSpans(storage, 'many', traceId(100 + n), [now - 30_000 + n]);
    const cursor = createDueCursor();
    const result = await pass({ cursor, batchSize: 10 });
    expect(result.traces).toBe(25);
    expect(result.searches).toBeGreaterThanOrEqual(3);
    for (let n = 0; n < 25; n++) expect(await flagsRow('many', traceId(100 + n)), `trace ${n}`).not.toBeNull();
    expect((await pass({ cursor, batchSize: 10 })).traces).toBe(0);
  });

  it('marks a due trace with no span left as judged, so it is not found again', async () => {
    const id = traceId(200);
    await setWrites([{ projectId: 'gone', traceId: id, landedMs: Date.now() - 1000 }]);
    const due = () => findDueTraces(storage, { fromMs: Date.now() - HOUR, toMs: Date.now(), limit: 10 });
    expect((await due()).map((t) => t.traceId)).toEqual([id]);
    expect((await pass({ cursor: createDueCursor() })).traces).toBe(0);
    expect(await flagsRow('gone', id)).toMatchObject({ flags: [] });
    expect(await due()).toEqual([]);
  });

  it('starts a new process at the newest judged write, and walks a backlog hours long in one pass', async () => {
    const now = Date.now();
    const [old, older, judged] = [traceId(300), traceId(301), traceId(302)];
    for (const id of [old, older, judged]) await insertTraceSpans(storage, 'backlog', id, [now - 10 * HOUR]);
    await setWrites([
      { projectId: 'backlog', traceId: older, landedMs: now - 5 * HOUR },
      { projectId: 'backlog', traceId: old, landedMs: now - 3 * HOUR },
      { projectId: 'backlog', traceId: judged, landedMs: now - HOUR },
    ]);
    // Judged by an earlier process, up to its write an hour ago.
    expect((await pass({ cursor: { landedMs: now - HOUR - 1 } })).traces).toBe(1);
    expect((await flagsRow('backlog', judged))!.landedMs).toBe(now - HOUR);

    // A new process (no cursor) starts there: the two older writes lie before it.
    expect((await pass()).traces).toBe(0);
    expect(await flagsRow('backlog', old)).toBeNull();

    // One a day behind walks forward a write per search: out of time after the first, it
    // says how far behind it is; the next pass walks to now.
    const cursor = { landedMs: now - 24 * HOUR };
    const first = await pass({ cursor, batchSize: 1, budgetMs: 0 });
    expect([first.traces, first.searches]).toEqual([1, 1]);
    expect(first.behindMs).toBeGreaterThanOrEqual(5 * HOUR);
    const rest = await pass({ cursor, batchSize: 1 });
    expect(rest.traces).toBe(1);
    expect(rest.searches).toBeGreaterThanOrEqual(2);
    expect(rest.behindMs).toBe(0);
    expect(cursor.landedMs).toBeGreaterThanOrEqual(now);
    expect((await flagsRow('backlog', older))!.landedMs).toBe(now - 5 * HOUR);
  });

  it('reads an output as produced by its stored preview, however long, and as empty when it is', async () => {
    const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
    const now = Date.now();
    const modelCall = (trace: string, output: string) => ({
      project_id: 'outputs', trace_id: trace, span_id: '0000000000000001', parent_span_id: '', name: 'chat', span_type: 'llm',
      start_time: at(now - 5_000), end_time: at(now - 4_000), duration_ms: 1000, output, ingested_at: now,
    });
    const [long, empty] = [traceId(500), traceId(501)];
    await storage.client.insert({ table: 'spans', values: [modelCall(long, 'é'.repeat(5_000)), modelCall(empty, ' [] ')], format: 'JSONEachRow' });
    expect((await pass({ cursor: createDueCursor() })).traces).toBeGreaterThanOrEqual(2);
    expect((await flagsRow('outputs', long))!.flags).toEqual([]);
    expect((await flagsRow('outputs', empty))!.flags).toEqual(['empty_output']);
  });

  it('fills the log, when migrated, with the traces whose spans came within the last day', async () => {
    const now = Date.now();
    await insertTraceSpans(storage, 'migrated', traceId(400), [now - 2 * HOUR], 1, now - 2 * HOUR);
    await insertTraceSpans(storage, 'migrated', traceId(401), [now - 30 * HOUR], 1, now - 30 * HOUR);
    await setWrites([]);
    await storage.client.command({ query: "DELETE FROM schema_migrations WHERE name = '0025_trace_writes.sql'" });
    expect(await migrate(storage)).toEqual(['0025_trace_writes.sql']);
    const result = await storage.client.query({
      query: "SELECT trace_id, toUnixTimestamp64Milli(landed_at) AS landed FROM trace_writes WHERE project_id = 'migrated'",
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([{ trace_id: traceId(400), landed: String(now - 2 * HOUR) }]);
  });
});
