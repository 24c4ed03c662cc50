import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Storage } from './client/client.ts';
import type { Statement } from './sql/statement.ts';

const MIGRATIONS_ROOT = fileURLToPath(new URL('../../../clickhouse/', import.meta.url));

export interface Migration {
  name: string;
  statements: string[];
}

/** Reads the ordered migration files of the single-node or cluster variant. */
export function loadMigrations(variant: 'single' | 'cluster', root = MIGRATIONS_ROOT): Migration[] {
  const dir = path.join(root, variant);
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, statements: splitStatements(readFileSync(path.join(dir, name), 'utf8')) }));
}

/** Splits a file into statements at semicolons that end a line; comment lines are dropped. */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Applies the migrations not applied yet, in order, and records each one so it runs once.
 * The DDL itself is idempotent (IF NOT EXISTS) so a crash between a statement and its
 * record is harmless on the next start.
 */
export async function migrate(storage: Storage): Promise<string[]> {
  const cluster = storage.cluster;
  await storage.client.command({ query: schemaMigrationsTableSql(cluster) });
  const applied = await appliedMigrations(storage);
  const done: string[] = [];
  for (const migration of loadMigrations(cluster ? 'cluster' : 'single')) {
    if (applied.has(migration.name)) continue;
    for (const statement of migration.statements) {
      // The cluster name is validated as an identifier by the config schema.
      await storage.client.command({ query: cluster ? statement.replaceAll('{cluster}', cluster) : statement });
    }
    await storage.client.insert({
      table: 'schema_migrations',
      values: [{ name: migration.name, applied_at: Date.now() }],
      format: 'JSONEachRow',
    });
    done.push(migration.name);
  }
  await applyDurability(storage);
  return done;
}

/** The statement that makes the table recording applied migrations, on one node or across the cluster. */
export function schemaMigrationsTableSql(cluster: string | undefined): string {
  const onCluster = cluster ? ` ON CLUSTER ${cluster}` : '';
  const engine = cluster
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/schema_migrations', '{replica}')`
    : 'ReplacingMergeTree';
  return `CREATE TABLE IF NOT EXISTS schema_migrations${onCluster} (name String, applied_at DateTime64(3, 'UTC')) ENGINE = ${engine} ORDER BY name`;
}

/** The MergeTree settings that make a written part survive a host crash: its files and its directory fsynced before the insert answers. */
const FSYNC_SETTINGS = ['fsync_after_insert', 'fsync_part_directory'];
/** Both on, as the engine writes them in a table's definition. */
const FSYNC_ON = FSYNC_SETTINGS.map((s) => `${s} = 1`).join(', ');

/** The MergeTree tables of the database whose settings differ from the durability mode (strict or standard). */
export function durabilityTablesSql(strict: boolean): Statement {
  const query =
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND NOT is_temporary AND name NOT LIKE '.inner%'" +
    // strict: the tables without both settings on; standard: the tables with either still set.
    ' AND (position(create_table_query, {fsync:String}) > 0) = {present:UInt8}';
  return { query, params: strict ? { fsync: FSYNC_ON, present: 0 } : { fsync: 'fsync_', present: 1 } };
}

/** The statement that sets (strict) or resets (standard) a table's fsync settings. */
export function durabilityChangeSql(table: string, strict: boolean): string {
  const change = strict ? `MODIFY SETTING ${FSYNC_ON}` : `RESET SETTING ${FSYNC_SETTINGS.join(', ')}`;
  // Table names come from the engine's own catalogue, quoted as identifiers.
  return `ALTER TABLE \`${table.replaceAll('`', '``')}\` ${change}`;
}

/**
 * DURABILITY on the embedded engine, set on every MergeTree table of the database (the
 * tables' own settings, kept in their metadata, so they are set or reset at each start to
 * follow the configuration). A server's tables follow the server's own merge_tree settings,
 * which its operator sets (docs/operations.md).
 */
async function applyDurability(storage: Storage): Promise<void> {
  if (storage.engine !== 'embedded') return;
  const strict = storage.durability === 'strict';
  // Only the tables whose settings differ are altered: a start in the same mode as the last one runs this select alone.
  const tables = durabilityTablesSql(strict);
  const result = await storage.client.query({ query: tables.query, query_params: tables.params, format: 'JSONEachRow' });
  for (const { name } of await result.json<{ name: string }>()) {
    await storage.client.command({ query: durabilityChangeSql(name, strict) });
  }
}

async function appliedMigrations(storage: Storage): Promise<Set<string>> {
  const result = await storage.client.query({ query: 'SELECT DISTINCT name FROM schema_migrations', format: 'JSONEachRow' });
  return new Set((await result.json<{ name: string }>()).map((r) => r.name));
}

/**
 * The migrations this version has that storage has not recorded yet (all of them before the
 * first migrate). Throws when storage cannot be reached, which readiness reports as such.
 */
export async function pendingMigrations(storage: Storage): Promise<string[]> {
  const exists = await storage.client.query({ query: "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'", format: 'JSONEachRow' });
  const applied = Number((await exists.json<{ n: string }>())[0]?.n ?? 0) > 0 ? await appliedMigrations(storage) : new Set<string>();
  return loadMigrations(storage.cluster ? 'cluster' : 'single')
    .map((m) => m.name)
    .filter((name) => !applied.has(name));
}
