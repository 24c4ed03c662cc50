import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { StorageSettings } from '@aos/config';
import { openFileInserts } from './embedded-file-insert.ts';
import { lowerEngineThreadPriority } from './engine-thread-priority.ts';
import { openEngineSessions, statementKind, type EngineClock, type EngineSessions } from './engine-sessions.ts';
import { routedConnection } from './routed-connection.ts';
import { describeStartupFailure, retryRead, serverAgent } from './server-http.ts';
import { rowInsertSettings } from './row-insert-settings.ts';
import { StorageUnavailableError, isStorageUnavailable } from './storage-unavailable.ts';
import { named, type QueryName } from '../sql/query-name.ts';

export { StorageUnavailableError, isStorageUnavailable } from './storage-unavailable.ts';

/** Settings every query runs with, on both engines, so results have one shape. */
const SESSION_SETTINGS: ClickHouseSettings = {
  // 64-bit integers as strings: token counts and nanosecond times exceed 2^53.
  output_format_json_quote_64bit_integers: 1,
  date_time_output_format: 'simple',
  // FINAL merges rows per partition only. Correct because the one partitioned table, spans,
  // has the hour of start_time in its key, so rows of one key never sit in two partitions;
  // a table partitioned otherwise must keep its key inside its partition too.
  do_not_merge_across_partitions_select_final: 1,
};

/**
 * Row formats both engines read: text ones, and RowBinary (span rows, span-rowbinary.ts),
 * which the embedded engine takes only through a file. Table and column names come from
 * code, never input.
 */
export type RowFormat = 'JSONEachRow' | 'JSONCompactEachRow' | 'TabSeparated' | 'CSV' | 'RowBinary';

/** Encoded rows: a text, or their bytes in parts (as they came from Redis), never turned into a JS string. */
export type RowsBody = string | readonly Uint8Array[];

/**
 * The one way the service reaches ClickHouse: a `ClickHouseClient` over either the
 * embedded engine (chDB, one data directory per process) or a server by URL.
 */
export interface Storage {
  readonly client: ClickHouseClient;
  readonly engine: 'embedded' | 'server';
  /** The cluster name when the schema is the replicated/distributed variant. */
  readonly cluster: string | undefined;
  /** DURABILITY: with `strict`, the embedded engine fsyncs every part it writes (see migrate). */
  readonly durability: StorageSettings['durability'];
  /**
   * The embedded engine's clocks of its sessions (engine-sessions.ts): how long statements
   * held each, the writes' read by the writer's block sizes. A server has none: it runs
   * statements side by side.
   */
  readonly statements?: EngineClock;
  /**
   * This storage for work no request waits on (the writer's passes over stored spans,
   * monitors, evaluations): on the embedded engine its reads wait in the read session's
   * line while requests' reads come (engine-sessions.ts), so a request's read waits at most
   * for the one running. Absent on a server, which runs statements side by side: the
   * storage itself serves. Closing the storage closes it.
   */
  readonly background?: Storage;
  /**
   * Inserts pre-encoded rows (one text in `format`, or its bytes in parts that follow
   * each other) through the fastest path each engine has; `name` goes to a server as the
   * insert's `log_comment` (see sql/query-name.ts). With a `token`, the insert is
   * `insert_deduplication_token`: the same rows sent again with the same token store
   * nothing (on tables with a deduplication window, see migration 0019). Rows of one key in
   * one insert are not collapsed as they are written (row-insert-settings.ts): the tables
   * it feeds are read with FINAL.
   */
  insertRows(table: string, columns: readonly string[], format: RowFormat, body: RowsBody, name?: QueryName, token?: string): Promise<void>;
  close(): Promise<void>;
}

export async function openStorage(settings: StorageSettings): Promise<Storage> {
  return settings.url ? openServer(settings) : openEmbedded(settings);
}

async function openEmbedded(settings: StorageSettings): Promise<Storage> {
  const dir = path.resolve(settings.dataDir, 'clickhouse');
  mkdirSync(dir, { recursive: true });
  let sessions: EngineSessions;
  try {
    sessions = openEngineSessions(dir);
  } catch (err) {
    throw new StorageUnavailableError(
      `cannot open the embedded ClickHouse data directory ${dir}: ${(err as Error).message}. ` +
        'Is another process of this service using it? (the embedded engine allows one process per data directory)',
    );
  }
  // chdb implements the same Connection contract against its own copy of client-common's types.
  type Connection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
  const client = createClient({ connection: routedConnection(sessions, 'request', true) as unknown as Connection });
  const backgroundClient = createClient({ connection: routedConnection(sessions, 'background', false) as unknown as Connection });
  // Each session is one connection, so USE and SET stick for every later statement on it.
  // Settings given to the client instead are sent as SET statements ahead of each query:
  // three more statements per query, about a millisecond.
  await client.command({ query: createDatabaseSql(settings.database, undefined) });
  await sessions.onBoth(`USE ${settings.database}`);
  for (const statement of embeddedSessionSql()) await sessions.onBoth(statement);
  // Rows reach the engine through a file, not chDB's raw insert (see embedded-file-insert.ts).
  const fileInserts = openFileInserts(dir, settings.dataDir, (sql, format) =>
    sessions.run(statementKind(sql), (session) => session.chdb.queryAsync(sql, { format })),
  );
  const priority = lowerEngineThreadPriority(settings.engineThreadsNice);
  const storage: Storage = {
    client,
    engine: 'embedded',
    cluster: undefined,
    durability: settings.durability,
    statements: sessions,
    // `name` is left unused, as named() leaves it on the embedded engine.
    insertRows: (table, columns, format, body, _name, token) => fileInserts.insert(table, columns, format, body, token),
    close: () => {
      priority.stop();
      fileInserts.close();
      return Promise.all([backgroundClient.close(), client.close()]).then(() => undefined);
    },
  };
  return { ...storage, background: { ...storage, client: backgroundClient, close: storage.close } };
}

/**
 * Settings every statement carries, on both engines, so that a write answers only once its
 * rows are in a part, whatever the engine's defaults or the user's profile say: async
 * inserts off (a profile with `async_insert=1, wait_for_async_insert=0` would acknowledge
 * rows that exist nowhere yet, and the writer would then remove their only copy from
 * Redis; with the embedded engine's default of waiting, a disk that refuses the part held
 * each insert for wait_for_async_insert_timeout instead of failing it), and on a cluster,
 * inserts into a Distributed table passed to the shards before the answer rather than
 * queued on the node that took them. Inserts are large already: the writer batches them
 * (WRITER_BATCH_MAX_ROWS / WRITER_BATCH_MAX_WAIT_MS).
 */
export function writeSettings(cluster: string | undefined): ClickHouseSettings {
  return { async_insert: 0, wait_for_async_insert: 1, ...(cluster ? { distributed_foreground_insert: 1 } : {}) };
}

/** The statement that makes the service's database, on every node of the cluster when there is one. */
export function createDatabaseSql(database: string, cluster: string | undefined): string {
  const onCluster = cluster ? ` ON CLUSTER ${cluster}` : '';
  return `CREATE DATABASE IF NOT EXISTS ${database}${onCluster}`;
}

/** The SET statements of the embedded session: SESSION_SETTINGS and the write settings. */
export function embeddedSessionSql(): string[] {
  return Object.entries({ ...SESSION_SETTINGS, ...writeSettings(undefined) }).map(
    ([name, value]) => `SET ${name} = ${typeof value === 'string' ? `'${value}'` : Number(value)}`,
  );
}

/** The statement of a server insert: the rows follow it in the request body, in `format`. */
export function serverInsertSql(table: string, columns: readonly string[], format: RowFormat): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) FORMAT ${format}`;
}

/** A ClickHouse server (or cluster) by URL. */
async function openServer(settings: StorageSettings): Promise<Storage> {
  const url = settings.url!;
  let ca: string | undefined;
  try {
    ca = settings.caCertFile === undefined ? undefined : readFileSync(settings.caCertFile, 'utf8');
  } catch (err) {
    throw new StorageUnavailableError(`cannot read CLICKHOUSE_CA_CERT ${settings.caCertFile}: ${(err as Error).message}`);
  }
  const common = {
    url,
    username: settings.user,
    password: settings.password,
    clickhouse_settings: { ...SESSION_SETTINGS, ...writeSettings(settings.cluster) },
    request_timeout: settings.requestTimeoutMs,
    // Errors reach the caller, which logs them in the service's own format.
    log: { level: ClickHouseLogLevel.OFF },
  };
  const agent = (maxSockets: number) =>
    serverAgent({ https: new URL(url).protocol === 'https:', ca, connectTimeoutMs: settings.connectTimeoutMs, maxSockets });
  const bootstrap = createClient({ ...common, http_agent: agent(1) });
  try {
    await bootstrap.command({ query: createDatabaseSql(settings.database, settings.cluster) });
  } catch (err) {
    throw new StorageUnavailableError(describeStartupFailure(err, { url, user: settings.user }));
  } finally {
    await bootstrap.close();
  }
  const client = createClient({ ...common, database: settings.database, http_agent: agent(10) });
  // Reads are idempotent: one that met a connection fault is sent again (writes never are).
  const query = client.query.bind(client);
  client.query = ((params: Parameters<typeof query>[0]) =>
    retryRead(() => query(params), settings.readRetries, isStorageUnavailable)) as typeof client.query;
  return {
    client,
    engine: 'server',
    cluster: settings.cluster,
    durability: settings.durability,
    async insertRows(table, columns, format, body, name, token) {
      if (body.length === 0) return;
      const settings = rowInsertSettings(token);
      const result = await client.exec({
        query: serverInsertSql(table, columns, format),
        // Parts are streamed one after the other, not joined first.
        values: Readable.from(typeof body === 'string' ? [body] : body),
        ...(name === undefined ? { clickhouse_settings: settings } : named({ engine: 'server' }, name, settings)),
      });
      result.stream.destroy();
    },
    close: () => client.close(),
  };
}
