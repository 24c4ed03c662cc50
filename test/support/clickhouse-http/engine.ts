import { createRequire } from 'node:module';
import path from 'node:path';
import { Session, type RawInsertFormat } from 'chdb';
import { insertRowBinary, quoteString } from './binary-insert.ts';
import { notImplemented } from './errors.ts';

/** What chDB's native call answers: the result bytes and the engine's counters. */
interface NativeResult {
  bytes: Buffer;
  elapsed: number;
  rowsRead: number;
  bytesRead: number;
}

interface NativeBinding {
  QueryAsyncConnection(connection: unknown, sql: string, format: string, params?: Record<string, string>): Promise<NativeResult>;
}

// Session.queryBindAsync re-escapes string parameters as chDB's own client would send
// them; a server takes the `param_*` text exactly as @clickhouse/client already escaped
// it. The native call binds that text unchanged, so parameters are parsed as a server
// parses them (arrays of quoted strings included).
const require = createRequire(import.meta.url);
const native = (require(require.resolve('chdb').replace(/index\.js$/, 'dist/loader.js')) as { loadNative(): NativeBinding }).loadNative();

/** What a statement did, in the counters of X-ClickHouse-Summary. */
export interface EngineResult {
  bytes: Buffer;
  elapsed: number;
  rowsRead: number;
  bytesRead: number;
  rowsWritten: number;
  bytesWritten: number;
}

export interface Statement {
  sql: string;
  /** The body after a query given in the URL (an insert's rows), as bytes: binary rows are not text. */
  data: Buffer | null;
  database: string;
  format: string;
  settings: ReadonlyMap<string, string>;
  params: Record<string, string>;
}

const INSERT_FORMAT = /^\s*INSERT\s+INTO\s+([A-Za-z0-9_.`]+)\s*(?:\(([^)]*)\))?\s*FORMAT\s+(\w+)[ \t]*(?:\n|$)/i;
const RAW_FORMATS = new Set(['JSONEachRow', 'JSONCompactEachRow', 'CSV', 'TabSeparated', 'TSV']);

export interface Engine {
  run(statement: Statement): Promise<EngineResult>;
  close(): void;
}

/**
 * One chDB session under `dir`, running one statement at a time. Settings and the
 * database are the session's state, so each statement sets its own and puts them back
 * afterwards: a request's settings never leak into the next, as on a server where they
 * belong to the request.
 */
export function openEngine(dir: string): Engine {
  const session = new Session(dir);
  const connection = (session as unknown as { connection: unknown }).connection;
  const exec = (sql: string, format = 'TabSeparated', params?: Record<string, string>) =>
    native.QueryAsyncConnection(connection, sql, format, params);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run(statement) {
      const next = queue.then(async () => {
        await exec(`USE ${quoteIdentifier(statement.database)}`);
        const applied: string[] = [];
        try {
          for (const [name, value] of statement.settings) {
            await exec(`SET ${name} = ${quoteString(value)}`);
            applied.push(name);
          }
          const insert = INSERT_FORMAT.exec(statement.sql);
          if (insert) {
            const [header, table, columns, format] = insert;
            // The rows follow the query: in the body when the query came in the URL, else after its first line.
            const values = statement.data ?? Buffer.from(statement.sql.slice(header.length));
            const names = columns?.split(',').map((c) => c.trim());
            if (format === 'RowBinary') return await insertRowBinary(exec, path.join(dir, 'insert-files'), table!, names, values);
            if (!RAW_FORMATS.has(format!)) throw notImplemented(`INSERT … FORMAT ${format}`);
            // The engine's raw insert parses the data in parallel, as a server does, and counts the rows written.
            const summary = await session.insert({ table: table!, columns: names, format: format as RawInsertFormat, values });
            return { bytes: Buffer.alloc(0), elapsed: summary.elapsed, rowsRead: summary.rowsWritten, bytesRead: summary.bytesSent, rowsWritten: summary.rowsWritten, bytesWritten: summary.bytesWritten };
          }
          // Not an insert of rows: what follows the URL's query continues its text, as a server reads it.
          const sql = statement.data ? `${statement.sql}\n${statement.data.toString('utf8')}` : statement.sql;
          const hasParams = Object.keys(statement.params).length > 0;
          const result = await exec(sql, statement.format, hasParams ? statement.params : undefined);
          return { ...result, rowsWritten: 0, bytesWritten: 0 };
        } finally {
          for (const name of applied) await exec(`SET ${name} = DEFAULT`);
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    close: () => session.close(),
  };
}

function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}
