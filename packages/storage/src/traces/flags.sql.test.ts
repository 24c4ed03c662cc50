// SQL snapshots of the cost statistics the cost_outlier flag is judged by. A changed
// snapshot is a changed statement: review the .sql and .params.json diffs as you would a
// hand-written query.
import { describe, it } from 'vitest';
import { costStatsSql } from './flags.ts';
import { SOME_HOURS_ROLLED_UP, WINDOW, expectStatement } from './test-fixtures.ts';

describe('costStatsSql', () => {
  it('takes median and MAD of trace costs from spans', async () => {
    await expectStatement(costStatsSql(WINDOW, []), 'flags-cost-stats-window');
  });

  it('reads rolled-up hours from rollups and the others from spans', async () => {
    await expectStatement(costStatsSql(WINDOW, SOME_HOURS_ROLLED_UP), 'flags-cost-stats-some-rolled-up');
  });
});
