// SQL snapshots of the session statements. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { FILTERED, WINDOW } from '../traces/test-fixtures.ts';
import { sessionDetailSql, sessionListSql } from './read.ts';

describe('sessionListSql', () => {
  it('lists the sessions of a window', async () => {
    await expectStatement(sessionListSql(WINDOW, { limit: 50 }), 'sessions-list-window');
  });

  it('lists the sessions of filtered traces after a cursor', async () => {
    const after = { lastActivityNs: '1767578400123456789', sessionId: 'session-9' };
    await expectStatement(sessionListSql(FILTERED, { limit: 50, after }), 'sessions-list-filtered-after');
  });
});

describe('sessionDetailSql', () => {
  it("reads a session's figures and traces within the margin around its own spans", async () => {
    const { figures, traces } = sessionDetailSql('project-1', 'session-1', { firstStartMs: WINDOW.startTimeMs, lastStartMs: WINDOW.endTimeMs });
    await expectStatement(figures, 'session-detail-figures');
    await expectStatement(traces, 'session-detail-traces');
  });
});
