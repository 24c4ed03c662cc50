// SQL snapshots of the statements selecting an evaluator's items. A changed snapshot is a
// changed statement: review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { FILTERED, WINDOW } from '../traces/test-fixtures.ts';
import { evaluationItemCountSql, evaluationItemPageSql } from './items.ts';

describe('evaluationItemCountSql', () => {
  it('counts the traces of a window', async () => {
    await expectStatement(evaluationItemCountSql({ target: 'trace', filter: WINDOW }), 'items-count-traces');
  });

  it('counts a sampled share of the sessions of the filtered traces', async () => {
    const selection = { target: 'session', filter: FILTERED, sampling: { evaluatorId: 'evaluator-1', rate: 0.25 } } as const;
    await expectStatement(evaluationItemCountSql(selection), 'items-count-sampled-sessions');
  });
});

describe('evaluationItemPageSql', () => {
  it('pages the spans the span filter picks in the matching traces, after a key', async () => {
    const selection = { target: 'span', filter: WINDOW, spanFilter: { type: 'llm', status: 'error', minCost: 0.01 } } as const;
    await expectStatement(evaluationItemPageSql(selection, { limit: 100, afterKey: 'trace-7/span-3' }), 'items-page-spans-after');
  });

  it('pages the traces from the start, sampling all of them (no hash condition)', async () => {
    const selection = { target: 'trace', filter: FILTERED, sampling: { evaluatorId: 'evaluator-1', rate: 1 } } as const;
    await expectStatement(evaluationItemPageSql(selection, { limit: 100 }), 'items-page-traces');
  });
});
