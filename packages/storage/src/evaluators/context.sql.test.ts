// SQL snapshots of the context an evaluator judges. A changed snapshot is a changed statement:
// review the .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { evaluationContextSql } from './context.ts';

describe('evaluationContextSql', () => {
  it("reads the traces' figures and their spans with texts cut short", async () => {
    const { traces, spans } = evaluationContextSql('project-1', ['trace-1', 'trace-2']);
    await expectStatement(traces, 'context-traces');
    await expectStatement(spans, 'context-spans');
  });
});
