// SQL snapshots of the metric series statement. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, expect, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { metricSeriesSql } from './series.ts';

const WINDOW = { projectId: 'acme', metric: 'gen_ai.client.token.usage', startTimeMs: Date.UTC(2026, 10, 25), endTimeMs: Date.UTC(2026, 10, 26), stepSeconds: 3600 };

describe('metricSeriesSql', () => {
  it('reads one metric of one project over a window, with the hour before it for cumulative baselines', async () => {
    await expectStatement(metricSeriesSql({ ...WINDOW, where: {} }), 'metric-series-window');
  });

  it('groups by an attribute and binds every filter value', async () => {
    const statement = metricSeriesSql({ ...WINDOW, groupBy: 'requestModel', where: { tokenType: 'input', providerName: "o'penai" } });
    expect(statement.query).not.toContain("o'penai");
    await expectStatement(statement, 'metric-series-grouped');
  });
});
