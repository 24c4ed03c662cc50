import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseTraces, listTraces, migrate, openStorage, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';
import { insertTraceSpans } from '../support/trace-spans.ts';

// A start-ordered list with no conditions chooses its traces from trace_starts (migration
// 0022); chooseTraces chooses them from spans. Both must give the same pages, cursors
// included, for traces crossing an hour, starting before the window, re-sent, and sharing
// an id with another project's trace.
let dir: string;
let storage: Storage;

const HOUR = 3_600_000;
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
const WINDOW = { projectId: 'acme', startTimeMs: BASE + HOUR, endTimeMs: BASE + 5 * HOUR };
const id = (n: number) => n.toString(16).padStart(32, '0');

type Page = { ids: string[]; next: unknown };

/** Every page of the window in one order, by the list (index path) and by chooseTraces (spans path). */
async function walk(order: 'asc' | 'desc', limit = 3, window = WINDOW): Promise<{ index: Page[]; spans: Page[] }> {
  const index: Page[] = [];
  const spans: Page[] = [];
  for (const pages of [index, spans]) {
    let after: { value: string; traceId: string } | undefined;
    do {
      const request = { limit, sortBy: 'startTime' as const, order, ...(after ? { after } : {}) };
      const page =
        pages === index
          ? await listTraces(storage, window, { ...request, previewChars: 10 }).then((p) => ({ ids: p.traces.map((t) => t.traceId), next: p.next }))
          : await chooseTraces(storage, window, request).then((p) => ({ ids: p.chosen.map((t) => t.trace_id), next: p.next }));
      pages.push(page);
      after = (page.next ?? undefined) as typeof after;
    } while (after);
  }
  return { index, spans };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-trace-starts-list-'));
  storage = await openStorage(storageSettingsForTest(dir));
  await migrate(storage);
  // Ten traces a few minutes to an hour apart, two crossing an hour, sent in two blocks.
  for (let n = 1; n <= 10; n++) await insertTraceSpans(storage, 'acme', id(n), [BASE + HOUR + n * 20 * 60_000, BASE + HOUR + n * 20 * 60_000 + 45 * 60_000]);
  await insertTraceSpans(storage, 'acme', id(2), [BASE + 3 * HOUR + 1_000], 3);
  // Starts before the window, with spans inside it: in neither list.
  await insertTraceSpans(storage, 'acme', id(11), [BASE + HOUR - 60_000, BASE + HOUR + 60_000]);
  // Another project's trace of the same id, earlier than acme's: it must not move acme's.
  await insertTraceSpans(storage, 'other', id(5), [BASE + HOUR + 1_000]);
  // Project edge: two traces in the window's first hour, and after them a trace that began
  // in the hour before the window (outside it), read third over the window's hours alone.
  await insertTraceSpans(storage, 'edge', id(21), [BASE + HOUR + 10 * 60_000]);
  await insertTraceSpans(storage, 'edge', id(22), [BASE + HOUR + 20 * 60_000]);
  await insertTraceSpans(storage, 'edge', id(23), [BASE + HOUR - 5 * 60_000, BASE + HOUR + 30 * 60_000]);
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('choosing a start-ordered page from the trace start index', () => {
  it('gives the pages chosen from spans, newest and oldest first', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const { index, spans } = await walk(order);
      expect(index.length).toBeGreaterThan(2);
      expect(index).toEqual(spans);
      expect(index.flatMap((p) => p.ids)).not.toContain(id(11));
      expect(new Set(index.flatMap((p) => p.ids)).size).toBe(10);
    }
  });

  it('gives the spans’ pages over a window with edges inside hours (probed up to the hour’s edge first)', async () => {
    const window = { ...WINDOW, startTimeMs: BASE + HOUR + 15 * 60_000, endTimeMs: BASE + 4 * HOUR + 30 * 60_000 };
    for (const order of ['desc', 'asc'] as const) {
      for (const limit of [1, 2, 4]) {
        const { index, spans } = await walk(order, limit, window);
        expect(index.length).toBeGreaterThan(1);
        expect(index).toEqual(spans);
      }
    }
  });

  it('gives the spans’ pages when the trace read past a page began before the window', async () => {
    // Over the window's first hour alone, trace 23 would be the row after the page of two,
    // promising a next page; it has a row in the margin, so the page is chosen again.
    for (const order of ['asc', 'desc'] as const) {
      const { index, spans } = await walk(order, 2, { ...WINDOW, projectId: 'edge' });
      expect(index).toEqual(spans);
      expect(index).toEqual([{ ids: order === 'asc' ? [id(21), id(22)] : [id(22), id(21)], next: null }]);
    }
  });

  it('gives the spans’ pages after a span is re-sent with an earlier or a later start', async () => {
    // Earlier: trace 7 now starts before trace 6 (the index follows).
    await insertTraceSpans(storage, 'acme', id(7), [BASE + HOUR + 6 * 20 * 60_000 - 60_000]);
    for (const order of ['desc', 'asc'] as const) {
      const { index, spans } = await walk(order);
      expect(index).toEqual(spans);
    }
    // Later: trace 3's earliest span moves past trace 4's start; the index keeps the old
    // start, the records of the page holding trace 3 disagree, and it is chosen again from
    // spans. (Over several pages, a cursor past trace 3's old start can leave it out: see start-index.ts.)
    await insertTraceSpans(storage, 'acme', id(3), [BASE + HOUR + 4 * 20 * 60_000 + 60_000]);
    for (const order of ['desc', 'asc'] as const) {
      const { index, spans } = await walk(order, 20);
      expect(index).toHaveLength(1);
      expect(index).toEqual(spans);
      const ids = index.flatMap((p) => p.ids);
      expect(order === 'asc' ? ids.indexOf(id(3)) > ids.indexOf(id(4)) : ids.indexOf(id(3)) < ids.indexOf(id(4))).toBe(true);
    }
  });
});
