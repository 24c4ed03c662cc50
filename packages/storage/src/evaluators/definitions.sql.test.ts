// SQL snapshots of the evaluator list. A changed snapshot is a changed statement: review the
// .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { evaluatorListSql } from './definitions.ts';

describe('evaluatorListSql', () => {
  it("reads a project's first page of evaluators", async () => {
    await expectStatement(evaluatorListSql('project-1', { limit: 50 }), 'evaluators-list');
  });

  it('reads the evaluators after an id', async () => {
    await expectStatement(evaluatorListSql('project-1', { limit: 50, afterId: 'ev_1' }), 'evaluators-list-after');
  });
});
