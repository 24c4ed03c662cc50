import { describe, expect, it } from 'vitest';
import { statementKind } from './engine-sessions.ts';

/** Statements as the service sends them, each with the kind the sessions must see in it. */
const STATEMENTS: [string, 'read' | 'write'][] = [
  ['SELECT 1', 'read'],
  ['  with x AS (SELECT 1) SELECT * FROM x', 'read'],
  ['-- list page\n/* v2 */ (SELECT 1) UNION ALL (SELECT 2)', 'read'],
  ['SHOW TABLES', 'read'],
  ['DESCRIBE TABLE spans', 'read'],
  ["INSERT INTO t SELECT * FROM file('x')", 'write'],
  ['ALTER TABLE spans DELETE WHERE 1', 'write'],
  ['OPTIMIZE TABLE t FINAL', 'write'],
  ['SET async_insert = 0', 'write'],
  ['SELECTED', 'write'],
];

describe('statementKind', () => {
  it.each(STATEMENTS)('%j is a %s', (sql, kind) => expect(statementKind(sql)).toBe(kind));
});
