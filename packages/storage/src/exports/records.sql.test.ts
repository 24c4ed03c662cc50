// SQL snapshots of the export list statement. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { exportListSql } from './records.ts';

describe('exportListSql', () => {
  it("reads a project's newest exports", async () => {
    await expectStatement(exportListSql('project-1', { limit: 20 }), 'exports-list');
  });

  it('reads the exports before an id', async () => {
    await expectStatement(exportListSql('project-1', { limit: 20, afterId: 'exp_0001' }), 'exports-list-after');
  });
});
