import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openStorage, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';
import { insertTraceSpans, traceHoursIn } from '../support/trace-spans.ts';

// Each trace's start and end as the engine keeps them while spans arrive (trace_starts,
// migration 0022), compared with what the trace's spans say, for traces sent in several
// blocks across an hour, a span re-sent with another start, and an id two projects share.
let dir: string;
let storage: Storage;

const HOUR = 3_600_000;
/** An hour two days back, so every hour below lies in the past. */
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;

const insertSpans = (projectId: string, traceId: string, startsMs: readonly number[], firstSpan = 1) =>
  insertTraceSpans(storage, projectId, traceId, startsMs, firstSpan);

interface Bounds { start: number; end: number; }

/** The trace's start and end by the index and by its spans (as the list reads them: latest copy of each span). */
async function bounds(projectId: string, traceId: string): Promise<{ index: Bounds; spans: Bounds }> {
  const read = async (query: string): Promise<Bounds> => {
    const result = await storage.client.query({ query, query_params: { p: projectId, t: traceId }, format: 'JSONEachRow' });
    const row = (await result.json<{ s: string; e: string }>())[0]!;
    return { start: Number(row.s), end: Number(row.e) };
  };
  return {
    index: await read('SELECT toUnixTimestamp64Milli(min(trace_start)) AS s, toUnixTimestamp64Milli(max(trace_end)) AS e FROM trace_starts WHERE project_id = {p:String} AND trace_id = {t:String}'),
    spans: await read('SELECT toUnixTimestamp64Milli(min(start_time)) AS s, toUnixTimestamp64Milli(max(end_time)) AS e FROM spans FINAL WHERE project_id = {p:String} AND trace_id = {t:String}'),
  };
}

const hoursOf = (projectId: string, traceId: string) => traceHoursIn(storage, 'trace_starts', projectId, traceId);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-trace-starts-'));
  storage = await openStorage(storageSettingsForTest(dir));
  await migrate(storage);
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the trace start index', () => {
  it('keeps the start and end of a trace sent in blocks across hours, a row in each hour it has spans in', async () => {
    const trace = 'b1'.repeat(16);
    await insertSpans('acme', trace, [BASE + HOUR - 5_000, BASE + HOUR + 5_000]);
    await insertSpans('acme', trace, [BASE + 2 * HOUR + 1_000], 3);
    expect(await hoursOf('acme', trace)).toEqual([BASE, BASE + HOUR, BASE + 2 * HOUR]);
    const { index, spans } = await bounds('acme', trace);
    expect(index).toEqual({ start: BASE + HOUR - 5_000, end: BASE + 2 * HOUR + 2_000 });
    expect(index).toEqual(spans);
  });

  it('follows a span re-sent with an earlier start; one re-sent later leaves the index before the spans, which a reader checks', async () => {
    const trace = 'b2'.repeat(16);
    // Within one hour, so the spans table replaces the span (its key holds the start's hour).
    await insertSpans('acme', trace, [BASE + 3 * HOUR + 60_000, BASE + 3 * HOUR + 120_000]);
    await insertSpans('acme', trace, [BASE + 3 * HOUR + 30_000]);
    let { index, spans } = await bounds('acme', trace);
    expect(index.start).toBe(BASE + 3 * HOUR + 30_000);
    expect(index).toEqual(spans);
    // min is kept, never raised: the earliest span moved later, the index still has the old start.
    await insertSpans('acme', trace, [BASE + 3 * HOUR + 90_000]);
    ({ index, spans } = await bounds('acme', trace));
    expect(spans.start).toBe(BASE + 3 * HOUR + 90_000);
    expect(index.start).toBe(BASE + 3 * HOUR + 30_000);
  });

  it('keeps the traces of two projects with the same id apart', async () => {
    const trace = 'b3'.repeat(16);
    await insertSpans('acme', trace, [BASE + 4 * HOUR]);
    await insertSpans('other', trace, [BASE + 6 * HOUR]);
    expect((await bounds('acme', trace)).index.start).toBe(BASE + 4 * HOUR);
    expect((await bounds('other', trace)).index.start).toBe(BASE + 6 * HOUR);
  });

  it('fills the index from spans written before the migration (its backfill), running again harmlessly', async () => {
    const trace = 'b4'.repeat(16);
    await insertSpans('acme', trace, [BASE + 20 * HOUR + 59 * 60_000, BASE + 21 * HOUR + 1_000]);
    await storage.client.command({ query: 'TRUNCATE TABLE trace_starts' });
    await storage.client.command({ query: "DELETE FROM schema_migrations WHERE name = '0022_trace_starts.sql'" });
    expect(await hoursOf('acme', trace)).toEqual([]);
    expect(await migrate(storage)).toEqual(['0022_trace_starts.sql']);
    const { index, spans } = await bounds('acme', trace);
    expect(index).toEqual(spans);
    expect((await bounds('acme', 'b1'.repeat(16))).index.start).toBe(BASE + HOUR - 5_000);
  });
});
