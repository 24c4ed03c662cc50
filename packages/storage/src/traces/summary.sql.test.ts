// SQL snapshots of the trace summary statement. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { traceSummarySql } from './summary.ts';
import { ALL_HOURS_ROLLED_UP, FILTERED, ON_ROOT_TEXT, SOME_HOURS_ROLLED_UP, WINDOW, expectStatement } from './test-fixtures.ts';

describe('traceSummarySql', () => {
  it('summarizes a plain window from spans', async () => {
    await expectStatement(traceSummarySql(WINDOW, []), 'summary-window');
  });

  it('applies every kind of filter', async () => {
    await expectStatement(traceSummarySql(FILTERED, []), 'summary-filtered');
  });

  it('reads the roots’ texts only for a condition on them', async () => {
    await expectStatement(traceSummarySql(ON_ROOT_TEXT, []), 'summary-root-text');
  });

  it('reads rolled-up hours from rollups and the others from spans', async () => {
    await expectStatement(traceSummarySql(WINDOW, SOME_HOURS_ROLLED_UP), 'summary-some-rolled-up');
  });

  it('reads a wholly rolled-up window from rollups alone, filters included', async () => {
    await expectStatement(traceSummarySql(FILTERED, ALL_HOURS_ROLLED_UP), 'summary-filtered-all-rolled-up');
  });
});
