// SQL snapshots of the span search. A changed snapshot is a changed statement: review the
// .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import type { SpanFilter } from '../traces/filter.ts';
import { WINDOW } from '../traces/test-fixtures.ts';
import { spanSearchSql } from './search.ts';

/** The window narrowed by every field a span filter has. */
const EVERY_FIELD: SpanFilter = {
  ...WINDOW,
  name: 'chat',
  type: 'llm',
  kind: 'client',
  status: 'error',
  model: 'gpt-4o',
  provider: 'openai',
  tool: 'lookup',
  traceId: 'trace-1',
  sessionId: 'session-1',
  userId: 'user-1',
  platform: 'web',
  minDurationMs: 100,
  maxDurationMs: 5000,
  minCost: 0.01,
  maxCost: 2,
  qualityFlags: ['missing_model'],
  attributes: [{ key: 'gen_ai.request.temperature', value: '0.2' }],
  dimensions: [{ key: 'customer', value: 'acme' }],
  search: 'refund',
};

describe('spanSearchSql', () => {
  it('searches a plain window, newest first', async () => {
    await expectStatement(spanSearchSql(WINDOW, { limit: 50 }), 'search-window');
  });

  it('continues after a cursor with every field of the filter', async () => {
    const after = { startNs: '1767589200123456789', traceId: 'trace-1', spanId: 'span-9' };
    await expectStatement(spanSearchSql(EVERY_FIELD, { limit: 50, after }), 'search-every-field-after');
  });
});
