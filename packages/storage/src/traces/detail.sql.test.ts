// SQL snapshot of the read of one trace with its spans and flags. A changed snapshot is a
// changed statement: review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { traceWithSpansSql } from './detail.ts';
import { expectStatement } from './test-fixtures.ts';

describe('traceWithSpansSql', () => {
  it('reads the trace’s texts, span tuples and flags in one row', async () => {
    await expectStatement(traceWithSpansSql('project-1', 'trace-1'), 'detail-trace-with-spans');
  });
});
