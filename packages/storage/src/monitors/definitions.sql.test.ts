// SQL snapshots of the monitor reads. A changed snapshot is a changed statement: review the
// .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { monitorListSql } from './definitions.ts';

describe('monitorListSql', () => {
  it("reads a project's first page of monitors", async () => {
    await expectStatement(monitorListSql('project-1', { limit: 50 }), 'monitors-list');
  });

  it('reads the monitors after an id', async () => {
    await expectStatement(monitorListSql('project-1', { limit: 50, afterId: 'mon_0001' }), 'monitors-list-after');
  });
});
