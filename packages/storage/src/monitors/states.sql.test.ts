// SQL snapshots of the monitor event list. A changed snapshot is a changed statement: review
// the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { monitorEventListSql } from './states.ts';

describe('monitorEventListSql', () => {
  it("reads a monitor's newest events", async () => {
    await expectStatement(monitorEventListSql('project-1', 'mon_0001', { limit: 50 }), 'monitor-events-list');
  });

  it('reads the events before a cursor', async () => {
    await expectStatement(monitorEventListSql('project-1', 'mon_0001', { limit: 50, before: { atMs: Date.UTC(2026, 0, 5), id: 'mev_1' } }), 'monitor-events-list-before');
  });
});
