// SQL snapshots of the score list statement. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { scoreListSql } from './records.ts';

describe('scoreListSql', () => {
  it("reads a trace's scores from the start", async () => {
    await expectStatement(scoreListSql('project-1', { traceId: 'trace-1' }, { limit: 100 }), 'scores-list-trace');
  });

  it("reads a session's scores after a cursor", async () => {
    await expectStatement(scoreListSql('project-1', { sessionId: 'session-1' }, { limit: 100, after: { createdMs: '1767571200000', id: 'sc_1' } }), 'scores-list-session-after');
  });
});
