// SQL snapshots of the statement that chooses a page of traces. A changed snapshot is a
// changed statement: review the .sql and .params.json diffs as you would a hand-written query.
import { describe, expect, it } from 'vitest';
import { chooseTracesSql } from './list.ts';
import { chooseByTraceStartsSql } from './start-index.ts';
import { FILTERED, ON_ROOT_TEXT, SOME_HOURS_ROLLED_UP, WINDOW, expectStatement } from './test-fixtures.ts';

describe('chooseTracesSql', () => {
  it('chooses the first page of a plain window, newest first', async () => {
    await expectStatement(chooseTracesSql(WINDOW, { limit: 50, sortBy: 'startTime', order: 'desc' }, []), 'list-choose-window');
  });

  it('continues after a cursor in start order, over rolled-up hours and spans', async () => {
    const page = { limit: 50, sortBy: 'startTime', order: 'desc', after: { value: '1767589200123456789', traceId: 'trace-9' } } as const;
    await expectStatement(chooseTracesSql(WINDOW, page, SOME_HOURS_ROLLED_UP), 'list-choose-after-some-rolled-up');
  });

  it('sorts by another figure with every kind of filter, computing only the figures they name', async () => {
    const page = { limit: 20, sortBy: 'cost', order: 'asc', after: { value: '0.25', traceId: 'trace-3' } } as const;
    await expectStatement(chooseTracesSql(FILTERED, page, []), 'list-choose-filtered-by-cost');
  });

  it('reads the roots’ texts only for a condition on them', async () => {
    await expectStatement(chooseTracesSql(ON_ROOT_TEXT, { limit: 50, sortBy: 'duration', order: 'desc' }, []), 'list-choose-root-text');
  });
});

describe('chooseByTraceStartsSql', () => {
  it('chooses a window-only page from the trace start index, after a cursor, oldest first', async () => {
    const page = { limit: 50, order: 'asc', after: { value: '1767589200123456789', traceId: 'trace-9' } } as const;
    await expectStatement(chooseByTraceStartsSql(WINDOW, page, 'margin'), 'list-choose-from-trace-starts');
  });

  it('over the window’s hours alone differs only in the first hour read', () => {
    const page = { limit: 50, order: 'desc' } as const;
    const margin = chooseByTraceStartsSql(WINDOW, page, 'margin');
    const window = chooseByTraceStartsSql(WINDOW, page, 'window');
    expect(window.params).toEqual(margin.params);
    const firstHour = (hourFrom: string) => `hour >= toStartOfHour({${hourFrom}:DateTime64(3)}) AND hour < {scanEnd:DateTime64(3)}`;
    expect(margin.query).toContain(firstHour('scanStart'));
    expect(window.query).toBe(margin.query.replace(firstHour('scanStart'), firstHour('startTime')));
  });
});
