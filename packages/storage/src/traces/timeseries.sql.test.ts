// SQL snapshots of the timeseries statements (and of the measure source monitors share).
// A changed snapshot is a changed statement: review the .sql and .params.json diffs as you
// would a hand-written query.
import { describe, it } from 'vitest';
import { measureByName } from './measures.ts';
import { measureSourceSql, timeseriesSql, timeseriesTopGroupsSql } from './timeseries.ts';
import { hourlyTimeseriesSql } from './timeseries-hourly.ts';
import { FILTERED, SOME_HOURS_ROLLED_UP, WINDOW, expectStatement } from './test-fixtures.ts';

describe('timeseriesSql', () => {
  it('counts traces per hour over a plain window', async () => {
    const request = { measure: 'trace_count', stepSeconds: 3600 } as const;
    const source = measureSourceSql(WINDOW, measureByName(request.measure), []);
    await expectStatement(timeseriesSql(source, request, null), 'timeseries-window');
  });

  it('joins the flags for flag_rate, with every kind of filter', async () => {
    const request = { measure: 'flag_rate', stepSeconds: 900 } as const;
    const source = measureSourceSql(FILTERED, measureByName(request.measure), []);
    await expectStatement(timeseriesSql(source, request, null), 'timeseries-filtered-flag-rate');
  });

  it('groups by a trace field over rolled-up hours and spans: the largest groups, then the series', async () => {
    const request = { measure: 'latency_p95', stepSeconds: 3600, groupBy: 'environment' } as const;
    const source = measureSourceSql(WINDOW, measureByName(request.measure), SOME_HOURS_ROLLED_UP, undefined, request.groupBy);
    await expectStatement(timeseriesTopGroupsSql(source, request.groupBy, 5), 'timeseries-grouped-top-groups');
    await expectStatement(timeseriesSql(source, request, ['prod', 'staging']), 'timeseries-grouped');
  });

  it('groups by a dimension from spans alone, with a score measure', async () => {
    const request = { measure: 'score_mean', stepSeconds: 3600, groupBy: { dimension: 'customer' } } as const;
    const source = measureSourceSql(FILTERED, measureByName(request.measure), SOME_HOURS_ROLLED_UP, 'helpfulness', request.groupBy);
    await expectStatement(timeseriesTopGroupsSql(source, request.groupBy, 5), 'timeseries-dimension-top-groups');
    await expectStatement(timeseriesSql(source, request, ['acme', '']), 'timeseries-dimension');
  });
});

describe('hourlyTimeseriesSql', () => {
  it('reads the hours the window covers whole from their hour figures, the others per trace', async () => {
    const statement = hourlyTimeseriesSql(WINDOW, 'latency_p95', 7200, SOME_HOURS_ROLLED_UP);
    if (!statement) throw new Error('hour figures serve a plain window of whole-hour buckets');
    await expectStatement(statement, 'timeseries-hourly-some-rolled-up');
  });
});
