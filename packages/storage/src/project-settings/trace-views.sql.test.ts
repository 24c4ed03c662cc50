// SQL snapshots of the saved view list. A changed snapshot is a changed statement: review
// the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { traceViewListSql } from './trace-views.ts';

describe('traceViewListSql', () => {
  it("reads a project's first page of live views", async () => {
    await expectStatement(traceViewListSql('project-1', { limit: 50 }), 'trace-views-list');
  });

  it('reads the views after an id', async () => {
    await expectStatement(traceViewListSql('project-1', { limit: 50, afterId: 'view_1' }), 'trace-views-list-after');
  });
});
