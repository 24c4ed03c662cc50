import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireProjectData, getSpanDetail, getTraceWithSpans, migrate, openStorage, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';
import { insertTraceSpans, traceHoursIn } from '../support/trace-spans.ts';

// A trace is read by its id through the hours its spans start in (trace_hours, migration
// 0020): these traces have spans in more than one hour, sent at once or later, and share
// their id with another project's trace, so a missing or extra hour shows as a wrong tree.
let dir: string;
let storage: Storage;

const HOUR = 3_600_000;
/** An hour two days back, so every hour below lies in the past. */
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
const TWO_HOURS = 'a1'.repeat(16);
const LATE = 'a2'.repeat(16);
const SHARED = 'a3'.repeat(16);
const BACKFILLED = 'a4'.repeat(16);

const insertSpans = (projectId: string, traceId: string, startsMs: readonly number[], firstSpan = 1) =>
  insertTraceSpans(storage, projectId, traceId, startsMs, firstSpan);

async function spanNames(projectId: string, traceId: string): Promise<string[] | null> {
  const found = await getTraceWithSpans(storage, projectId, traceId);
  return found ? found.spans.map((s) => s.name) : null;
}

const hoursOf = (projectId: string, traceId: string) => traceHoursIn(storage, 'trace_hours', projectId, traceId);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-trace-hours-'));
  storage = await openStorage(storageSettingsForTest(dir));
  await migrate(storage);
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reading a trace through its hours', () => {
  it('reads a trace whose spans start in two hours whole', async () => {
    await insertSpans('acme', TWO_HOURS, [BASE + HOUR - 60_000, BASE + HOUR - 1, BASE + HOUR, BASE + HOUR + 30_000]);
    expect(await hoursOf('acme', TWO_HOURS)).toEqual([BASE, BASE + HOUR]);
    expect(await spanNames('acme', TWO_HOURS)).toEqual(['span 1', 'span 2', 'span 3', 'span 4']);
  });

  it('reads one span of such a trace, finding its parent in the other hour', async () => {
    const span = await getSpanDetail(storage, 'acme', TWO_HOURS, '0000000000000004');
    expect(span?.name).toBe('span 4');
    expect(span?.qualityFlags).not.toContain('parent_missing');
    expect(await getSpanDetail(storage, 'other', TWO_HOURS, '0000000000000004')).toBeNull();
  });

  it('records the hours of spans written with INSERT … SELECT, as the query benchmark writes its dataset', async () => {
    const trace = 'a6'.repeat(16);
    await storage.client.command({
      query: `INSERT INTO spans (project_id, trace_id, span_id, name, start_time, end_time, ingested_at)
        SELECT 'acme', {trace:String}, leftPad(hex(number + 1), 16, '0'), concat('span ', toString(number + 1)),
          fromUnixTimestamp64Milli(toInt64({first:UInt64} + number * {step:UInt64}), 'UTC'),
          fromUnixTimestamp64Milli(toInt64({first:UInt64} + number * {step:UInt64} + 1000), 'UTC'), 1
        FROM numbers(3)`,
      query_params: { trace, first: BASE + 6 * HOUR, step: HOUR },
    });
    expect(await hoursOf('acme', trace)).toEqual([BASE + 6 * HOUR, BASE + 7 * HOUR, BASE + 8 * HOUR]);
    expect(await spanNames('acme', trace)).toEqual(['span 1', 'span 2', 'span 3']);
  });

  it('reads spans that arrive later in another hour', async () => {
    await insertSpans('acme', LATE, [BASE + 10_000]);
    expect(await spanNames('acme', LATE)).toEqual(['span 1']);
    await insertSpans('acme', LATE, [BASE + 3 * HOUR + 5_000], 2);
    // A replayed batch adds a copy of an hour's row, which the read takes as one hour.
    await insertSpans('acme', LATE, [BASE + 10_000]);
    expect(await hoursOf('acme', LATE)).toEqual([BASE, BASE + 3 * HOUR]);
    expect(await spanNames('acme', LATE)).toEqual(['span 1', 'span 2']);
  });

  it('reads only the asked project’s spans of a trace id another project has too', async () => {
    await insertSpans('acme', SHARED, [BASE + 2 * HOUR]);
    await insertSpans('other', SHARED, [BASE + 5 * HOUR, BASE + 5 * HOUR + 1_000]);
    expect(await spanNames('acme', SHARED)).toEqual(['span 1']);
    expect(await spanNames('other', SHARED)).toEqual(['span 1', 'span 2']);
    expect(await spanNames('nobody', SHARED)).toBeNull();
  });

  it('finds the hours of spans written before the migration (its backfill), running again harmlessly', async () => {
    await insertSpans('acme', BACKFILLED, [BASE + 20 * HOUR, BASE + 21 * HOUR]);
    // As before migration 0020: no trace hours at all, and the migration not applied.
    await storage.client.command({ query: 'TRUNCATE TABLE trace_hours' });
    await storage.client.command({ query: "DELETE FROM schema_migrations WHERE name = '0020_trace_hours.sql'" });
    expect(await spanNames('acme', BACKFILLED)).toBeNull();
    expect(await migrate(storage)).toEqual(['0020_trace_hours.sql']);
    expect(await hoursOf('acme', BACKFILLED)).toEqual([BASE + 20 * HOUR, BASE + 21 * HOUR]);
    expect(await spanNames('acme', BACKFILLED)).toEqual(['span 1', 'span 2']);
    expect(await spanNames('acme', TWO_HOURS)).toEqual(['span 1', 'span 2', 'span 3', 'span 4']);
  });

  it('keeps the hour a retention cutoff falls within, so the spans after the cutoff are still read', async () => {
    const trace = 'a5'.repeat(16);
    const hour = BASE + 30 * HOUR;
    await insertSpans('expiring', trace, [hour - 10_000, hour + 10 * 60_000, hour + 50 * 60_000]);
    await expireProjectData(storage, 'expiring', hour + 30 * 60_000);
    expect(await hoursOf('expiring', trace)).toEqual([hour]);
    expect(await spanNames('expiring', trace)).toEqual(['span 3']);
    await expireProjectData(storage, 'expiring', hour + HOUR);
    expect(await hoursOf('expiring', trace)).toEqual([]);
    expect(await spanNames('expiring', trace)).toBeNull();
  });
});
