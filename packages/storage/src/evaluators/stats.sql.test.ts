// SQL snapshots of the evaluator score statistics. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { evaluatorScoreStatsSql } from './stats.ts';

const DAY = { projectId: 'project-1', startMs: Date.UTC(2026, 0, 5), endMs: Date.UTC(2026, 0, 6), stepSeconds: 3600 };

describe('evaluatorScoreStatsSql', () => {
  it("buckets every evaluator's scores of a day", async () => {
    await expectStatement(evaluatorScoreStatsSql(DAY), 'stats-all-evaluators');
  });

  it("buckets one evaluator's scores", async () => {
    await expectStatement(evaluatorScoreStatsSql({ ...DAY, evaluatorId: 'ev_1' }), 'stats-one-evaluator');
  });
});
