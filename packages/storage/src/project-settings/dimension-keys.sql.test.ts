// SQL snapshot of the metadata-key discovery, whose statement is written from the metadata
// prefixes. A changed snapshot is a changed statement: review the .sql and .params.json
// diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { metadataKeysSql } from './dimension-keys.ts';

describe('metadataKeysSql', () => {
  it('samples recent spans for keys under every metadata prefix and in the metadata object, leaving out the dimensions', async () => {
    const input = { projectId: 'project-1', sinceMs: Date.UTC(2026, 0, 5), exclude: ['customer', 'plan'], limit: 20 };
    await expectStatement(metadataKeysSql(input), 'metadata-keys-discover');
  });
});
