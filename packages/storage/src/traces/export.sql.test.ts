// SQL snapshots of the trace export statements: the rows of a slice, and the minutes that
// plan the slices. A changed snapshot is a changed statement: review the .sql and
// .params.json diffs as you would a hand-written query.
import { describe, expect, it } from 'vitest';
import { traceExportMinutesSql, traceExportSql, type TraceExportColumn } from './export.ts';
import { ALL_HOURS_ROLLED_UP, FILTERED, SOME_HOURS_ROLLED_UP, WINDOW, expectStatement } from './test-fixtures.ts';

/** A column of every kind (plain, text, time, float, count, nullable text, list, long text). */
const COLUMNS: TraceExportColumn[] = ['traceId', 'name', 'startTime', 'durationMs', 'spanCount', 'cost', 'sessionId', 'models', 'input'];

describe('traceExportSql', () => {
  it('writes CSV rows of a plain window', async () => {
    await expectStatement(traceExportSql(WINDOW, 'csv', COLUMNS, []), 'export-csv-window');
  });

  it('writes JSON Lines with every kind of filter, over rolled-up hours and spans', async () => {
    await expectStatement(traceExportSql(FILTERED, 'jsonl', COLUMNS, SOME_HOURS_ROLLED_UP), 'export-jsonl-filtered-some-rolled-up');
  });
});

describe('traceExportMinutesSql', () => {
  it('counts the minutes of a window from spans', async () => {
    await expectStatement(traceExportMinutesSql(WINDOW, [])!, 'export-minutes-window');
  });

  it('counts rolled-up hours from rollups and the others from spans', async () => {
    await expectStatement(traceExportMinutesSql(WINDOW, SOME_HOURS_ROLLED_UP)!, 'export-minutes-some-rolled-up');
  });

  it('counts a wholly rolled-up window from rollups alone', async () => {
    await expectStatement(traceExportMinutesSql(WINDOW, ALL_HOURS_ROLLED_UP)!, 'export-minutes-all-rolled-up');
  });

  it('asks nothing for an empty window', () => {
    expect(traceExportMinutesSql({ ...WINDOW, endTimeMs: WINDOW.startTimeMs }, [])).toBeNull();
  });
});
