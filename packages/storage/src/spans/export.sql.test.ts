// SQL snapshots of the page of spans a trace export writes. A changed snapshot is a changed
// statement: review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { WINDOW } from '../traces/test-fixtures.ts';
import { spanExportSql } from './export.ts';

describe('spanExportSql', () => {
  it('reads the first page of the traces’ spans within the window’s span scan', async () => {
    await expectStatement(spanExportSql(WINDOW, ['trace-1', 'trace-2'], { limit: 100 }), 'export-spans-first');
  });

  it('continues after a cursor in start order', async () => {
    const after = { startNs: '1767589200123456789', traceId: 'trace-1', spanId: 'span-9' };
    await expectStatement(spanExportSql(WINDOW, ['trace-1', 'trace-2'], { limit: 100, after }), 'export-spans-after');
  });
});
