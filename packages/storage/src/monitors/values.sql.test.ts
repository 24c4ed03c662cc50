// SQL snapshots of the statements a monitor judges by. A changed snapshot is a changed
// statement: review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { measureByName } from '../traces/measures.ts';
import { FILTERED, SOME_HOURS_ROLLED_UP, WINDOW } from '../traces/test-fixtures.ts';
import { measureSourceSql } from '../traces/timeseries.ts';
import { measureValuesSql, sampleTracesSql } from './values.ts';

describe('measureValuesSql', () => {
  it('judges an ungrouped measure over a window, rolled-up hours from rollups', async () => {
    const source = measureSourceSql(WINDOW, measureByName('error_rate'), SOME_HOURS_ROLLED_UP);
    await expectStatement(measureValuesSql(source, { measure: 'error_rate', extreme: 'highest' }), 'values-ungrouped');
  });

  it('judges a score measure per dimension value, lowest first', async () => {
    const request = { measure: 'score_mean', scoreName: 'helpfulness', groupBy: { dimension: 'customer' }, extreme: 'lowest' } as const;
    const source = measureSourceSql(FILTERED, measureByName(request.measure), [], request.scoreName, request.groupBy);
    await expectStatement(measureValuesSql(source, request), 'values-score-by-dimension');
  });
});

describe('sampleTracesSql', () => {
  it('takes the newest traces of one group as evidence', async () => {
    const source = measureSourceSql(FILTERED, measureByName('latency_p95'), SOME_HOURS_ROLLED_UP, undefined, 'environment');
    await expectStatement(sampleTracesSql(source, { groupBy: 'environment', group: 'production' }), 'values-evidence-group');
  });
});
