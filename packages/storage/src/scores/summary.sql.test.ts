// SQL snapshots of the score summary statement. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { FILTERED, SOME_HOURS_ROLLED_UP, WINDOW } from '../traces/test-fixtures.ts';
import { scoreSummarySql } from './summary.ts';

describe('scoreSummarySql', () => {
  it('summarizes the scores of one trace and its spans', async () => {
    await expectStatement(scoreSummarySql('project-1', { traceId: 'trace-1' }, []), 'score-summary-trace');
  });

  it('summarizes the scores of one session', async () => {
    await expectStatement(scoreSummarySql('project-1', { sessionId: 'session-1' }, []), 'score-summary-session');
  });

  it('summarizes the scores of the traces a filter matches, every kind of filter applied', async () => {
    await expectStatement(scoreSummarySql('project-1', { traceFilter: FILTERED }, []), 'score-summary-filtered');
  });

  it('reads the matching traces of rolled-up hours from rollups and the others from spans', async () => {
    await expectStatement(scoreSummarySql('project-1', { traceFilter: WINDOW }, SOME_HOURS_ROLLED_UP), 'score-summary-some-rolled-up');
  });
});
