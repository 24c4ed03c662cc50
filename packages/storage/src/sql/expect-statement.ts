/** A check for the SQL snapshot tests of every domain. Not exported by the package. */
import { expect } from 'vitest';
import type { Statement } from './statement.ts';

/**
 * Checks a statement against its snapshots beside the test: the SQL as it is sent (but
 * its leading line break) in `__snapshots__/<name>.sql`, the parameters in
 * `__snapshots__/<name>.params.json`; and that every parameter the SQL binds has a value.
 */
export async function expectStatement(statement: Statement, name: string): Promise<void> {
  const bound = [...statement.query.matchAll(/\{(\w+):[^}]+\}/g)].map((m) => m[1]!);
  expect(bound.filter((p) => !(p in statement.params))).toEqual([]);
  await expect(`${statement.query.replace(/^\n/, '')}\n`).toMatchFileSnapshot(`./__snapshots__/${name}.sql`);
  await expect(`${JSON.stringify(statement.params, null, 2)}\n`).toMatchFileSnapshot(`./__snapshots__/${name}.params.json`);
}
