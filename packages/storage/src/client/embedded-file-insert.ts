import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rowInsertSettings } from './row-insert-settings.ts';

/**
 * Inserts into the embedded engine through a file: each insert's bytes are written to a
 * private file on a memory filesystem and read with `INSERT … SELECT * FROM file(…)`.
 *
 * Why not chDB's raw insert: it hands the payload to the engine's multi-statement client
 * code, which copies it several times, scans it for a blank line and runs the SQL lexer
 * over all of it (chdb-core `ClientBase::analyzeMultiQueryText`); a file read by `file()`
 * skips all that: 29 % less CPU per row for the ingest benchmark's rows, more for larger
 * ones (docs/benchmarks.md, "Engine write"). One insert is still one statement and one block.
 */

/** The engine as this module needs it: one statement, its output as text (chDB's `queryAsync`). */
export type EngineQuery = (sql: string, format: string) => Promise<{ text(): string }>;

export interface FileInserts {
  /** The directory the insert files are written to (kept private to this data directory). */
  readonly directory: string;
  /** `token`: the insert's `insert_deduplication_token` (see Storage.insertRows). */
  insert(table: string, columns: readonly string[], format: string, body: string | readonly Uint8Array[], token?: string): Promise<void>;
  /** Removes the directory, so a data directory that is not opened again leaves nothing on /dev/shm. */
  close(): void;
}

/** Where the rows go before the engine reads them: memory when it can be had, else the data directory. */
const MEMORY_FILESYSTEM = '/dev/shm';
/**
 * A container's /dev/shm is 64 MiB unless raised (Docker's and Kubernetes' default): one
 * 50,000-row block nearly fills it, and a full one would fail every insert. Smaller memory
 * filesystems are passed over for the data directory (whose pages the kernel caches anyway).
 */
const MIN_MEMORY_FS_BYTES = 1024 ** 3;

/** The memory filesystem to try first and the size it must have (tests pass others). */
export interface MemoryFilesystem {
  path: string;
  minBytes: number;
}
const DEFAULT_MEMORY_FS: MemoryFilesystem = { path: MEMORY_FILESYSTEM, minBytes: MIN_MEMORY_FS_BYTES };

/**
 * Characters `file()` reads as a glob (`*`, `?`, `{a,b}`, `{1..9}`) or as a path into an
 * archive (`::`): a directory holding one would make the engine read other files.
 */
const PATH_SYNTAX = /[*?{}]|::/;

/**
 * Chooses the insert-file directory for the engine at `engineDir` and clears what a crashed
 * process left in it. Call it only once the engine is open: chDB admits one process per
 * data directory, so the directory (named after the engine's path) is this process's alone.
 */
export function openFileInserts(engineDir: string, dataDir: string, query: EngineQuery, memoryFs = DEFAULT_MEMORY_FS): FileInserts {
  const directory = insertFileDirectory(engineDir, dataDir, memoryFs);
  for (const entry of readdirSync(directory)) rmSync(path.join(directory, entry), { recursive: true, force: true });
  const structures = new Map<string, string>();
  let sequence = 0;
  return {
    directory,
    async insert(table, columns, format, body, token) {
      if (body.length === 0) return;
      const key = `${table}(${columns.join(',')})`;
      const structure = await (structures.get(key) ?? tableStructure(query, table, columns));
      structures.set(key, structure);
      const file = path.join(directory, `${++sequence}.${format}`);
      try {
        // A failure here (ENOSPC on /dev/shm, EACCES…) stays Node's own error, with its errno code.
        await writeFile(file, body, { flag: 'wx', mode: 0o600 });
        await query(fileInsertSql({ table, columns, file, format, structure, settings: rowInsertSettings(token) }), 'TabSeparated');
      } catch (err) {
        // The table may have changed under the cached structure: read it again next time.
        structures.delete(key);
        throw err;
      } finally {
        // A file that cannot be removed is cleared at the next start; the insert's outcome stands.
        await rm(file, { force: true }).catch(() => {});
      }
    },
    close: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/**
 * The statement of one file insert: the rows of `file`, parsed as `format` into `structure`
 * (tableStructure's), into these columns, with these settings (the service's inserts: those
 * of row-insert-settings.ts). Values are written in as quoted literals: the engine's
 * queryAsync takes no bound parameters.
 */
export function fileInsertSql(insert: {
  table: string;
  columns: readonly string[];
  file: string;
  format: string;
  structure: string;
  settings: Readonly<Record<string, string | number>>;
}): string {
  const { table, columns, file, format, structure, settings } = insert;
  // Measured on chDB: a token (insert_deduplication_token) deduplicates INSERT … SELECT FROM file() as it does a plain insert.
  const assignments = Object.entries(settings).map(([name, value]) => `${name} = ${typeof value === 'string' ? sqlString(value) : value}`);
  const clause = assignments.length === 0 ? '' : ` SETTINGS ${assignments.join(', ')}`;
  return `INSERT INTO ${table} (${columns.join(', ')})${clause} SELECT * FROM file(${sqlString(file)}, ${sqlString(format)}, ${sqlString(structure)})`;
}

/**
 * `/dev/shm/aos-inserts-<digest of the engine's path>` when /dev/shm holds at least 1 GiB
 * and the directory can be made private (a directory of ours, mode 0700: the filesystem is
 * shared by every user of the machine), else `<DATA_DIR>/insert-files`.
 */
export function insertFileDirectory(engineDir: string, dataDir: string, memoryFs = DEFAULT_MEMORY_FS): string {
  const digest = createHash('sha256').update(path.resolve(engineDir)).digest('hex').slice(0, 16);
  const inMemory = path.join(memoryFs.path, `aos-inserts-${digest}`);
  if (largeEnough(memoryFs) && privateDirectory(inMemory)) return inMemory;
  const onDisk = path.resolve(dataDir, 'insert-files');
  if (PATH_SYNTAX.test(onDisk)) {
    throw new Error(`cannot keep insert files under DATA_DIR ${dataDir}: the engine's file() reads *, ?, {, } and :: in a path as patterns, and ${memoryFs.path} is not usable`);
  }
  mkdirSync(onDisk, { recursive: true, mode: 0o700 });
  return onDisk;
}

function largeEnough(filesystem: MemoryFilesystem): boolean {
  try {
    const { blocks, bsize } = statfsSync(filesystem.path);
    return blocks * bsize >= filesystem.minBytes;
  } catch {
    return false; // no such filesystem
  }
}

function privateDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false; // no /dev/shm, read-only, no access
  }
  // Another user may have made the name first, or a symlink to elsewhere: then it is not ours.
  const stat = lstatSync(dir);
  const mine = process.getuid === undefined || stat.uid === process.getuid();
  return stat.isDirectory() && mine && (stat.mode & 0o077) === 0;
}

/** The statement of tableStructure: the table's columns with their types and defaults. */
export function tableColumnsSql(table: string): string {
  return `SELECT name, type, default_kind, default_expression FROM system.columns WHERE database = currentDatabase() AND table = ${sqlString(table)}`;
}

/** A read of no rows of these columns, for the engine's own error when one is unknown. */
export function columnsProbeSql(table: string, columns: readonly string[]): string {
  return `SELECT ${columns.join(', ')} FROM ${table} LIMIT 0`;
}

/**
 * The inserted columns with the table's own types and DEFAULT expressions, as `file()`'s
 * structure: the rows are parsed into exactly the types a direct insert parses them into
 * (no conversion after), and a null sent for a column with a DEFAULT gets that default,
 * as a direct insert gives it.
 */
export async function tableStructure(query: EngineQuery, table: string, columns: readonly string[]): Promise<string> {
  const result = await query(tableColumnsSql(table), 'JSONCompactEachRow');
  const described = new Map<string, string>();
  for (const line of result.text().split('\n')) {
    if (!line) continue;
    const [name, type, kind, expression] = JSON.parse(line) as [string, string, string, string];
    described.set(name, kind === 'DEFAULT' ? `${type} DEFAULT ${expression}` : type);
  }
  if (columns.some((c) => !described.has(c))) {
    // An unknown table or column: the engine's own error (its code and text), as a direct insert gets one.
    await query(columnsProbeSql(table, columns), 'TabSeparated');
    throw new Error(`table ${table} lacks one of the columns ${columns.join(', ')}`);
  }
  return columns.map((c) => `\`${c}\` ${described.get(c)}`).join(', ');
}

/** A ClickHouse string literal (quotes and backslashes escaped). */
export function sqlString(s: string): string {
  return `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
