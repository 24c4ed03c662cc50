// SQL snapshot of the whole-row read the log-record pass rewrites spans from. A changed
// snapshot is a changed statement: review the .sql and .params.json diffs as you would a
// hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { spanRowsSql } from './log-records.ts';

describe('spanRowsSql', () => {
  it('reads every column of the spans named, times as decimal seconds', async () => {
    const keys = [
      { traceId: 'trace-1', spanId: 'span-1' },
      { traceId: 'trace-1', spanId: 'span-2' },
      { traceId: 'trace-2', spanId: 'span-1' },
    ];
    await expectStatement(spanRowsSql('project-1', keys), 'log-records-span-rows');
  });
});
