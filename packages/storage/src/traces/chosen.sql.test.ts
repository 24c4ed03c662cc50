// SQL snapshots of the statement that reads the records of a page's chosen traces. A changed
// snapshot is a changed statement: review the .sql and .params.json diffs as you would a
// hand-written query.
import { describe, it } from 'vitest';
import { chosenTraceRecordsSql, type ChosenTrace } from './chosen.ts';
import { startedBeforeWindowSql } from './start-index.ts';
import { WINDOW, expectStatement } from './test-fixtures.ts';

const CHOSEN: ChosenTrace[] = [
  { trace_id: 'trace-1', trace_start_ns: '1767582000000000000', trace_end_ns: '1767582004500000000', span_count: '12' },
  { trace_id: 'trace-2', trace_start_ns: '1767578400250000000', trace_end_ns: '1767585600000000000', span_count: '40' },
];
const SCAN_END = '1767614400.000';

describe('chosenTraceRecordsSql', () => {
  it('reads span tuples to figure here, previews cut from the stored ones', async () => {
    await expectStatement(chosenTraceRecordsSql('project-1', CHOSEN, SCAN_END, 200, true), 'chosen-figured-here');
  });

  it('asks the engine for the figures of big traces, previews cut from the whole texts', async () => {
    await expectStatement(chosenTraceRecordsSql('project-1', CHOSEN, SCAN_END, 5000, false), 'chosen-figured-by-engine');
  });

  it('also asks which traces read over the window’s hours have a row in the margin', async () => {
    const alsoAsk = startedBeforeWindowSql(WINDOW, ['trace-1', 'trace-2', 'trace-3']);
    await expectStatement(chosenTraceRecordsSql(WINDOW.projectId, CHOSEN, SCAN_END, 200, true, alsoAsk), 'chosen-also-asking-started-before');
  });
});
