// SQL snapshots of the findings statements. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { findingCountSql, findingListSql } from './read.ts';
import type { FindingQuery } from './read.ts';

const PROJECT: FindingQuery = { projectId: 'project-1' };
/** Every condition a query can set. */
const NARROWED: FindingQuery = {
  projectId: 'project-1',
  assetType: 'monitor',
  assetId: 'mon-1',
  statuses: ['open', 'investigating'],
  investigatorKind: 'monitor',
  investigatorId: 'mon-1',
  severities: ['high', 'critical'],
};

describe('findingListSql', () => {
  it("reads a project's first page", async () => {
    await expectStatement(findingListSql(PROJECT, { limit: 50 }), 'findings-list-project');
  });

  it('reads a narrowed page before a cursor', async () => {
    await expectStatement(findingListSql(NARROWED, { limit: 50, before: { lastSeenMs: Date.UTC(2026, 0, 5), id: 'fnd_1' } }), 'findings-list-narrowed-before');
  });
});

describe('findingCountSql', () => {
  it('counts a narrowed query per status and severity', async () => {
    await expectStatement(findingCountSql(NARROWED), 'findings-count-narrowed');
  });
});
