/** Inputs and a check for the SQL snapshot tests of trace statements. Not exported by the package. */
import type { Statement } from '../sql/statement.ts';
import type { TraceFilter } from './filter.ts';
import type { RolledUpHour } from './rollups.ts';

const HOUR_MS = 3_600_000;
/** 2026-01-05T00:00:00Z: fixed, so snapshots do not move with the clock. */
const START_MS = Date.UTC(2026, 0, 5);
const hourRolledUp = (hour: number): RolledUpHour => ({ hourMs: START_MS + hour * HOUR_MS, version: 1_767_600_000_000_000 + hour });

/** Eight hours of one project, no other condition. */
export const WINDOW: TraceFilter = { projectId: 'project-1', startTimeMs: START_MS, endTimeMs: START_MS + 8 * HOUR_MS };

/** The window narrowed by status, text search, a score, a trace flag, a dimension and a query-language expression. */
export const FILTERED: TraceFilter = {
  ...WINDOW,
  status: 'error',
  search: 'refund',
  score: { name: 'helpfulness', min: 0.5, max: 1, label: 'good' },
  flags: ['loop'],
  dimensions: [{ key: 'customer', value: 'acme' }],
  query: 'duration > 2s and has span(type = "tool")',
};

/** The window with a query-language condition on the trace's input, which only spans hold. */
export const ON_ROOT_TEXT: TraceFilter = { ...WINDOW, query: 'input contains "refund"' };

/** Hours 02:00 to 04:00 rolled up: the hours before and after are read from spans (two ranges). */
export const SOME_HOURS_ROLLED_UP: readonly RolledUpHour[] = [2, 3, 4].map(hourRolledUp);

/** Every hour of the window rolled up: nothing is read from spans. */
export const ALL_HOURS_ROLLED_UP: readonly RolledUpHour[] = [0, 1, 2, 3, 4, 5, 6, 7].map(hourRolledUp);

export { expectStatement } from '../sql/expect-statement.ts';
