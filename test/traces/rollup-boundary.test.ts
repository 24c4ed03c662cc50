import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactRollupHours, type RolledUpHour, type TraceFilter } from '@aos/storage';
import { chooseTracesSql } from '../../packages/storage/src/traces/list.ts';
import { traceSummarySql } from '../../packages/storage/src/traces/summary.ts';
import { hourlyTimeseriesSql } from '../../packages/storage/src/traces/timeseries-hourly.ts';
import { measureSourceSql, timeseriesSql } from '../../packages/storage/src/traces/timeseries.ts';
import { measureByName } from '@aos/storage';
import type { Statement } from '../../packages/storage/src/sql/statement.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// A live range that follows a rolled-up hour is scanned from its first hour, without the
// hour of margin before it, and the rolled-up traces reaching into it are left out by id
// (rows.ts, hourRanges). These tests read hours 0, 1 and 3 of five past hours from their
// (exact) rollups and hours 2 and 4 from spans, with traces across each boundary, and hold
// summaries, lists and timeseries to the spans alone.
let svc: TestService;
const HOUR = 3_600_000;
const MIN = 60_000;
const DAY = 24 * HOUR;
/** 10:00 two days ago: five hours of traces follow. */
const BASE = Math.floor(Date.now() / DAY) * DAY - 2 * DAY + 10 * HOUR;
const H = (n: number) => BASE + n * HOUR;
const PROJECT = 'default';

/** A trace: its root from `startMs` to `endMs`, and a child span starting at each of `childStarts` (10 s long). */
interface Crafted {
  id: string;
  startMs: number;
  endMs: number;
  childStarts: number[];
  error?: boolean;
}

const trace = (n: number, startMs: number, endMs: number, childStarts: number[], error = false): Crafted => ({
  id: (0x4000 + n).toString(16).padStart(32, '0'),
  startMs,
  endMs,
  childStarts,
  error,
});

const TRACES: Crafted[] = [
  trace(1, H(0) + 5 * MIN, H(0) + 6 * MIN, [H(0) + 5 * MIN]),
  trace(2, H(1) + 10 * MIN, H(1) + 20 * MIN, [H(1) + 11 * MIN], true),
  // Started in rolled-up hour 1, a span in live hour 2: hour 1's.
  trace(3, H(1) + 50 * MIN, H(2) + 15 * MIN, [H(2) + 10 * MIN]),
  // Starts right at live hour 2's start.
  trace(4, H(2), H(2) + 8 * MIN, [H(2) + 5 * MIN]),
  // Long: from rolled-up hour 1 through live hour 2 into rolled-up hour 3.
  trace(5, H(1) + 30 * MIN, H(3) + 10 * MIN, [H(2) + 40 * MIN, H(2) + 59 * MIN], true),
  trace(6, H(2) + 30 * MIN, H(2) + 31 * MIN, [H(2) + 30 * MIN]),
  // Started in live hour 2, a span in rolled-up hour 3: hour 2's.
  trace(7, H(2) + 50 * MIN, H(3) + 25 * MIN, [H(3) + 20 * MIN]),
  trace(8, H(3) + 15 * MIN, H(3) + 16 * MIN, [H(3) + 15 * MIN]),
  // Started in rolled-up hour 3, spans in live hour 4: the second boundary.
  trace(9, H(3) + 55 * MIN, H(4) + 12 * MIN, [H(4) + 10 * MIN]),
  trace(10, H(4), H(4) + MIN, [H(4) + 30 * 1_000], true),
  trace(11, H(4) + 40 * MIN, H(4) + 45 * MIN, [H(4) + 41 * MIN]),
];

function spansOf(t: Crafted) {
  const id = (n: number) => String(n).padStart(16, '0');
  const ns = (ms: number) => String(ms * 1_000_000);
  const root = { traceId: t.id, spanId: id(1), name: 'agent run', startTimeUnixNano: ns(t.startMs), endTimeUnixNano: ns(t.endMs), status: { code: t.error ? 2 : 1 }, attributes: [] };
  const children = t.childStarts.map((at, i) => ({
    traceId: t.id,
    spanId: id(i + 2),
    parentSpanId: id(1),
    name: 'chat gpt-4o',
    startTimeUnixNano: ns(at),
    endTimeUnixNano: ns(at + 10_000),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'gen_ai.usage.input_tokens', value: { intValue: String(100 + i) } }],
  }));
  return [root, ...children];
}

async function rows(statement: Statement): Promise<Array<Record<string, unknown>>> {
  const result = await svc.service.storage.client.query({ query: statement.query, query_params: statement.params, format: 'JSONEachRow' });
  return result.json<Record<string, unknown>>();
}

/** The window's exact rollups less those of hours 2 and 4 (read from spans, as live hours are). */
async function rolledUp(filter: TraceFilter): Promise<RolledUpHour[]> {
  const hours = await exactRollupHours(svc.service.storage, PROJECT, filter);
  return hours.filter((h) => h.hourMs !== H(2) && h.hourMs !== H(4));
}

beforeAll(async () => {
  svc = await startTestService({ TRACE_ROLLUP_QUIET_MS: '0', TRACE_ROLLUP_INTERVAL_MS: '200' });
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: TRACES.flatMap(spansOf) }] }] }),
  });
  expect(res.status).toBe(200);
  await eventually(async () => {
    const hours = await exactRollupHours(svc.service.storage, PROJECT, { startTimeMs: H(0), endTimeMs: H(5) });
    return [0, 1, 2, 3, 4].every((n) => hours.some((h) => h.hourMs === H(n))) ? true : undefined;
  }, 30_000, 'five hours rolled up');
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

const WINDOWS: Array<[string, TraceFilter, number]> = [
  ['whole hours', { projectId: PROJECT, startTimeMs: H(0), endTimeMs: H(5) }, TRACES.length],
  // Trace 1 (00:05) falls before it, trace 11 (04:40) after.
  ['hours cut at both ends', { projectId: PROJECT, startTimeMs: H(0) + 20 * MIN, endTimeMs: H(4) + 30 * MIN }, TRACES.length - 2],
];

describe('live hours after rolled-up hours', () => {
  it('are scanned from their first hour, crossing traces left out by id', async () => {
    const statement = traceSummarySql(WINDOWS[0]![1], await rolledUp(WINDOWS[0]![1]));
    expect(statement.params.crossingHours).toEqual([H(1) / 1000, H(3) / 1000]);
    // One range from hour 2's start: its margin after reaches hour 4, which runs on to the window's end and its margin.
    const bounds = [statement.params.liveFrom0, statement.params.liveTo0, statement.params.liveFrom1];
    expect(bounds).toEqual([(H(2) / 1000).toFixed(3), (H(6) / 1000).toFixed(3), undefined]);
  });

  for (const [name, filter, count] of WINDOWS) {
    it(`give the summary the spans give: ${name}`, async () => {
      const rollups = await rolledUp(filter);
      expect(rollups.length).toBeGreaterThan(1);
      const [fromSpans] = await rows(traceSummarySql(filter, []));
      expect(Number(fromSpans!.summary_traces)).toBe(count);
      expect(Number(fromSpans!.summary_error_traces)).toBeGreaterThan(0);
      for (const hourFigures of [true, false]) {
        expect(await rows(traceSummarySql(filter, rollups, { hourFigures })), `hour figures: ${hourFigures}`).toEqual([fromSpans]);
      }
    });

    it(`list the traces the spans list, with and without conditions: ${name}`, async () => {
      const rollups = await rolledUp(filter);
      for (const query of [undefined, 'duration > 5m']) {
        const f = { ...filter, ...(query ? { query } : {}) };
        const page = { limit: 50, sortBy: 'startTime', order: 'asc' } as const;
        const fromSpans = await rows(chooseTracesSql(f, page, []));
        expect(await rows(chooseTracesSql(f, page, rollups)), query ?? 'no condition').toEqual(fromSpans);
        const expected = TRACES.filter((t) => t.startMs >= f.startTimeMs && t.startMs < f.endTimeMs && (!query || t.endMs - t.startMs > 5 * MIN)).sort((a, b) => a.startMs - b.startMs);
        expect(fromSpans.map((r) => r.trace_id)).toEqual(expected.map((t) => t.id));
        expect(fromSpans.map((r) => Number(r.span_count))).toEqual(expected.map((t) => 1 + t.childStarts.length));
      }
    });

    it(`give the timeseries the spans give: ${name}`, async () => {
      const rollups = await rolledUp(filter);
      for (const measure of ['trace_count', 'latency_p50', 'error_rate', 'span_count'] as const) {
        const fromSpans = await rows(timeseriesSql(measureSourceSql(filter, measureByName(measure), []), { measure, stepSeconds: 3600 }, null));
        expect(fromSpans.length, measure).toBeGreaterThan(0);
        const perTrace = timeseriesSql(measureSourceSql(filter, measureByName(measure), rollups), { measure, stepSeconds: 3600 }, null);
        expect(await rows(perTrace), measure).toEqual(fromSpans);
        const hourly = hourlyTimeseriesSql(filter, measure, 3600, rollups);
        if (hourly) expect(await rows(hourly), `${measure} from hour figures`).toEqual(fromSpans);
      }
    });
  }
});
