// SQL snapshot of the read of one span in full. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { spanDetailSql } from './detail.ts';

describe('spanDetailSql', () => {
  it('reads the span’s columns and whether its parent is stored', async () => {
    await expectStatement(spanDetailSql('project-1', 'trace-1', 'span-1'), 'detail-span');
  });
});
