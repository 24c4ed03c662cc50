// SQL snapshots of the rollup statements. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { dropSupersededRollupsSql, dueRollupHoursSql, exactRollupHoursSql, rollupPartSql } from './rollups.ts';
import { WINDOW, expectStatement } from './test-fixtures.ts';

const HOUR_MS = 3_600_000;
const due = (projectId: string, hour: number, currentVersion: number) => ({
  projectId,
  hourMs: WINDOW.startTimeMs + hour * HOUR_MS,
  writtenAround: 1200,
  writtenIn: 400,
  currentVersion,
});

describe('rollup statements', () => {
  it('finds the hours whose writes went quiet since their rollups', async () => {
    await expectStatement(dueRollupHoursSql({ nowMs: WINDOW.endTimeMs, quietMs: 300_000, limit: 20 }), 'rollups-due-hours');
  });

  it('computes one part of an hour by trace id hash', async () => {
    const hour = WINDOW.startTimeMs + 3 * HOUR_MS;
    const hours = { projectId: 'project-1', firstHourMs: hour, lastHourMs: hour };
    await expectStatement(rollupPartSql(hours, { version: 1_767_600_000_000_003, parts: 4, part: 1 }), 'rollups-compute-part');
  });

  it('computes a run of consecutive hours in one statement', async () => {
    const hours = { projectId: 'project-1', firstHourMs: WINDOW.startTimeMs + 3 * HOUR_MS, lastHourMs: WINDOW.startTimeMs + 9 * HOUR_MS };
    await expectStatement(rollupPartSql(hours, { version: 1_767_600_000_000_003, parts: 1, part: 0 }), 'rollups-compute-run');
  });

  it('drops superseded versions, on every shard of a cluster', async () => {
    const hours = [due('project-1', 2, 1_767_600_000_000_002), due('project-2', 5, 1_767_600_000_000_005)];
    await expectStatement(dropSupersededRollupsSql(hours, undefined), 'rollups-drop-superseded');
    await expectStatement(dropSupersededRollupsSql(hours, 'aos_cluster'), 'rollups-drop-superseded-cluster');
    await expectStatement(dropSupersededRollupsSql(hours, 'aos_cluster', 'trace_hour_figures'), 'rollups-drop-superseded-hour-figures-cluster');
  });

  it('finds the exact rolled-up hours of a window', async () => {
    await expectStatement(exactRollupHoursSql('project-1', { startTimeMs: WINDOW.startTimeMs + 1_000, endTimeMs: WINDOW.endTimeMs }), 'rollups-exact-hours');
  });
});
