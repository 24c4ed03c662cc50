// SQL snapshot of what a finding reaches. A changed snapshot is a changed statement: review
// the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { findingReachSql } from './reach.ts';

describe('findingReachSql', () => {
  it('counts the traces, users, sessions and cost the evidence reaches', async () => {
    await expectStatement(findingReachSql('project-1', ['trace-1', 'trace-2']), 'findings-reach');
  });
});
