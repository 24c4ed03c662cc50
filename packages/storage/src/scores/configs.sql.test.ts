// SQL snapshots of the score config list. A changed snapshot is a changed statement: review
// the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { scoreConfigListSql } from './configs.ts';

describe('scoreConfigListSql', () => {
  it("reads a project's active configs", async () => {
    await expectStatement(scoreConfigListSql('project-1', { includeArchived: false, limit: 50 }), 'score-configs-list-active');
  });

  it('reads archived configs too, after an id', async () => {
    await expectStatement(scoreConfigListSql('project-1', { includeArchived: true, limit: 50, afterId: 'scfg_1' }), 'score-configs-list-all-after');
  });
});
