import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { notImplemented } from './errors.ts';

/** One statement on the engine's session, its answer as bytes (engine.ts's native call). */
type Exec = (sql: string, format?: string) => Promise<{ bytes: Buffer; rowsRead: number; elapsed: number }>;

/**
 * `INSERT INTO t (…) FORMAT RowBinary` with the rows as the body, as a server takes it.
 * chDB's raw insert refuses binary formats (its payload goes through the SQL lexer and is
 * cut at a blank line), so the bytes go to a file the engine reads with
 * `INSERT … SELECT * FROM file(…, RowBinary, <the columns' types>)`, as the service's
 * embedded engine does (packages/storage/src/client/embedded-file-insert.ts).
 */
export async function insertRowBinary(exec: Exec, dir: string, table: string, columns: readonly string[] | undefined, data: Buffer) {
  if (table.includes('.') || table.includes('`')) throw notImplemented('a RowBinary insert into a qualified or quoted table name');
  const described = await exec(
    `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = ${quoteString(table)} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS') ORDER BY position`,
    'JSONCompactEachRow',
  );
  const types = new Map<string, string>();
  for (const line of described.bytes.toString('utf8').split('\n')) {
    if (!line) continue;
    const [name, type] = JSON.parse(line) as [string, string];
    types.set(name, type);
  }
  const names = columns ?? [...types.keys()];
  // An unknown table or column: the engine's own error, as a server gives it.
  if (names.length === 0 || names.some((c) => !types.has(c))) await exec(`SELECT ${names.join(', ') || '*'} FROM ${table} LIMIT 0`);
  const structure = names.map((c) => `\`${c}\` ${types.get(c)}`).join(', ');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${randomUUID()}.RowBinary`);
  writeFileSync(file, data, { mode: 0o600 });
  const rows = `file(${quoteString(file)}, 'RowBinary', ${quoteString(structure)})`;
  try {
    // The engine does not say how many rows an INSERT … SELECT wrote: they are counted first
    // (a second parse of the file), for X-ClickHouse-Summary's written_rows.
    const counted = await exec(`SELECT count() FROM ${rows}`);
    const result = await exec(`INSERT INTO ${table} (${names.join(', ')}) SELECT * FROM ${rows}`);
    const written = Number(counted.bytes.toString('utf8').trim());
    return { bytes: Buffer.alloc(0), elapsed: counted.elapsed + result.elapsed, rowsRead: written, bytesRead: data.length, rowsWritten: written, bytesWritten: data.length };
  } finally {
    rmSync(file, { force: true });
  }
}

/** A string literal (a setting's value, a path, a name). */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
