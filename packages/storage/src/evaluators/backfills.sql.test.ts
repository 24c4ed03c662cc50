// SQL snapshots of the backfill list. A changed snapshot is a changed statement: review the
// .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { backfillListSql } from './backfills.ts';

describe('backfillListSql', () => {
  it("reads an evaluator's newest backfills", async () => {
    await expectStatement(backfillListSql('project-1', 'ev_1', { limit: 20 }), 'backfills-list');
  });

  it('reads the backfills before an id', async () => {
    await expectStatement(backfillListSql('project-1', 'ev_1', { limit: 20, beforeId: 'bf_1' }), 'backfills-list-before');
  });
});
