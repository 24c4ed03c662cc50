import { randomUUID, timingSafeEqual } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Engine, Statement } from './engine.ts';
import { ServerError, engineErrorCode, httpStatusOf, notImplemented } from './errors.ts';

export interface EndpointUser {
  password: string;
  /** A user that may only read: anything else is refused as a server refuses it for `readonly = 1`. */
  readonly?: boolean;
}

/** URL parameters that are the request's own, not settings. */
const REQUEST_PARAMS = new Set(['query', 'database', 'default_format', 'query_id', 'session_id', 'user', 'password']);
/** HTTP-layer settings this endpoint honours: compression, and waiting for the end of the query (it always does). */
const HTTP_SETTINGS = new Set(['enable_http_compression', 'http_zlib_compression_level', 'wait_end_of_query']);
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const READ_STATEMENT = /^\s*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;
const TRAILING_FORMAT = /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i;
const SET_STATEMENT = /^\s*SET\s+(.+?)\s*;?\s*$/is;

const CONTENT_TYPES: Record<string, string> = {
  JSON: 'application/json; charset=UTF-8',
  JSONEachRow: 'application/x-ndjson; charset=UTF-8',
  JSONCompactEachRow: 'application/x-ndjson; charset=UTF-8',
  TabSeparated: 'text/tab-separated-values; charset=UTF-8',
  CSV: 'text/csv; charset=UTF-8; header=absent',
};

type Codec = 'gzip' | 'deflate' | 'br';
const decompress: Record<Codec, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};
const compress: Record<Codec, (b: Buffer, level: number) => Promise<Buffer>> = {
  gzip: (b, level) => promisify(zlib.gzip)(b, { level }),
  deflate: (b, level) => promisify(zlib.deflate)(b, { level }),
  br: (b) => promisify(zlib.brotliCompress)(b),
};
const isCodec = (name: string): name is Codec => name in decompress;

/** Sessions (`session_id`) keep the settings a `SET` statement gave them, as a server's session does. */
type Sessions = Map<string, Map<string, string>>;

/**
 * The request handler of the endpoint: the part of ClickHouse's HTTP interface that
 * @clickhouse/client uses, run on `engine`. See README.md beside this file for what it
 * covers and what it refuses. With `writeLog`, every statement that is not a read is
 * recorded there (a JSON line: its first line and the settings it ran with), so a test can
 * see what a write was sent with.
 */
export function createHandler(engine: Engine, users: ReadonlyMap<string, EndpointUser>, writeLog?: string) {
  const sessions: Sessions = new Map();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://endpoint');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    res.setHeader('X-ClickHouse-Query-Id', queryId);
    res.setHeader('X-ClickHouse-Timezone', 'UTC');
    try {
      if (url.pathname === '/ping' && req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (url.pathname !== '/') {
        throw new ServerError(1, 'UNSUPPORTED_METHOD', `There is no handle ${url.pathname}. Use / or /ping`);
      }
      if (req.method !== 'POST' && req.method !== 'GET') throw notImplemented(`HTTP method ${req.method}`);
      const user = authenticate(req, url, users);
      const body = await readBody(req);
      const statement = buildStatement(url, body, sessions);
      const isRead = READ_STATEMENT.test(statement.sql);
      if (!isRead && (user.readonly || req.method === 'GET')) {
        throw new ServerError(164, 'READONLY', `${user.name}: Cannot execute query in readonly mode`);
      }
      const setOnly = SET_STATEMENT.exec(statement.sql);
      if (writeLog && !isRead && !setOnly) {
        const line = { statement: statement.sql.split('\n', 1)[0]!.slice(0, 300), settings: Object.fromEntries(statement.settings) };
        appendFileSync(writeLog, `${JSON.stringify(line)}\n`);
      }
      const result = setOnly ? remember(setOnly[1]!, url.searchParams.get('session_id'), sessions) : await engine.run(statement).catch(rethrowEngineError);
      res.setHeader(
        'X-ClickHouse-Summary',
        JSON.stringify({
          read_rows: String(result.rowsRead),
          read_bytes: String(result.bytesRead),
          written_rows: String(result.rowsWritten),
          written_bytes: String(result.bytesWritten),
          total_rows_to_read: String(result.rowsRead),
          result_rows: String(isRead ? result.rowsRead : 0),
          result_bytes: String(result.bytes.length),
          elapsed_ns: String(Math.round(result.elapsed * 1e9)),
        }),
      );
      res.setHeader('X-ClickHouse-Format', statement.format);
      res.setHeader('Content-Type', CONTENT_TYPES[statement.format] ?? 'text/plain; charset=UTF-8');
      await send(res, req, url, result.bytes);
    } catch (err) {
      const error = err instanceof ServerError ? err : new ServerError(1001, 'STD_EXCEPTION', (err as Error).message);
      if (res.headersSent) {
        // A server that fails mid-stream appends the exception to the body; here nothing streams, so this is a bug of the endpoint.
        res.destroy(error);
        return;
      }
      res.writeHead(httpStatusOf(error.code), {
        'Content-Type': 'text/plain; charset=UTF-8',
        'X-ClickHouse-Exception-Code': String(error.code),
      });
      res.end(`${error.message}\n`);
    }
  };
}

function authenticate(req: IncomingMessage, url: URL, users: ReadonlyMap<string, EndpointUser>): EndpointUser & { name: string } {
  const authorization = req.headers.authorization;
  let name = 'default';
  let password = '';
  if (authorization?.startsWith('Basic ')) {
    const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    name = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  } else if (authorization !== undefined) {
    throw notImplemented(`Authorization scheme ${authorization.split(' ')[0]}`);
  } else if (req.headers['x-clickhouse-user'] !== undefined) {
    name = String(req.headers['x-clickhouse-user']);
    password = String(req.headers['x-clickhouse-key'] ?? '');
  } else if (url.searchParams.has('user')) {
    name = url.searchParams.get('user')!;
    password = url.searchParams.get('password') ?? '';
  }
  if (req.headers['x-clickhouse-ssl-certificate-auth'] !== undefined) throw notImplemented('TLS client certificate authentication');
  const user = users.get(name);
  const given = Buffer.from(password);
  const expected = Buffer.from(user?.password ?? '');
  if (!user || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ServerError(516, 'AUTHENTICATION_FAILED', `${name}: Authentication failed: password is incorrect, or there is no user with such name`);
  }
  return { ...user, name };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const encoding = req.headers['content-encoding'];
  if ((req.headers['content-type'] ?? '').startsWith('multipart/form-data')) throw notImplemented('multipart/form-data query parameters');
  if (encoding === undefined || encoding === 'identity') return raw;
  if (!isCodec(encoding)) throw notImplemented(`Content-Encoding ${encoding}`);
  return decompress[encoding](raw);
}

function buildStatement(url: URL, body: Buffer, sessions: Sessions): Statement {
  const params = url.searchParams;
  const fromUrl = params.get('query') ?? '';
  // A server reads the query from the `query` parameter followed by the body (an insert's
  // data, kept as bytes: binary rows are no text), or from the body alone.
  const sql = fromUrl || body.toString('utf8');
  const data = fromUrl && body.length > 0 ? body : null;
  if (sql.trim() === '') throw new ServerError(62, 'SYNTAX_ERROR', 'Empty query');
  if (/^\s*CREATE\s+TEMPORARY\b/i.test(sql)) throw notImplemented('temporary tables');
  if (params.has('role')) throw notImplemented('the role parameter');
  const sessionId = params.get('session_id');
  const settings = new Map(sessionId ? sessions.get(sessionId) : undefined);
  const bound: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name.startsWith('param_')) bound[name.slice(6)] = value;
    else if (REQUEST_PARAMS.has(name) || HTTP_SETTINGS.has(name)) continue;
    else if (name.startsWith('http_') || name === 'send_progress_in_http_headers') throw notImplemented(`the HTTP setting ${name}`);
    else if (!SETTING_NAME.test(name)) throw new ServerError(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'`);
    else settings.set(name, value);
  }
  const isInsert = /^\s*INSERT\b/i.test(sql);
  const format = (!isInsert && TRAILING_FORMAT.exec(sql)?.[1]) || params.get('default_format') || 'TabSeparated';
  return { sql, data, database: params.get('database') ?? 'default', format, settings, params: bound };
}

/** `SET a = 1, b = 'x'`: kept by the named session; without one a server applies it to that request alone, which changes nothing. */
function remember(assignments: string, sessionId: string | null, sessions: Sessions) {
  if (sessionId) {
    const settings = sessions.get(sessionId) ?? new Map<string, string>();
    for (const assignment of assignments.split(',')) {
      const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*'?([^']*)'?\s*$/.exec(assignment);
      if (!match) throw notImplemented(`SET ${assignment.trim()}`);
      settings.set(match[1]!, match[2]!);
    }
    sessions.set(sessionId, settings);
  }
  return { bytes: Buffer.alloc(0), elapsed: 0, rowsRead: 0, bytesRead: 0, rowsWritten: 0, bytesWritten: 0 };
}

function rethrowEngineError(err: unknown): never {
  const message = (err as Error).message;
  const code = engineErrorCode(message);
  const type = /\(([A-Z0-9_]{3,})\)\s*$/.exec(message)?.[1] ?? 'STD_EXCEPTION';
  const inner = message.replace(/^Code: \d+\. DB::Exception: /, '').replace(/\. \([A-Z0-9_]{3,}\)\s*$/, '').replace(/\s*\([A-Z0-9_]{3,}\)\s*$/, '');
  throw new ServerError(code, type, inner);
}

async function send(res: ServerResponse, req: IncomingMessage, url: URL, bytes: Buffer) {
  const accepted = String(req.headers['accept-encoding'] ?? '')
    .split(',')
    .map((s) => s.trim().split(';')[0]!);
  const codec = url.searchParams.get('enable_http_compression') === '1' ? accepted.find(isCodec) : undefined;
  if (!codec) {
    res.writeHead(200).end(bytes);
    return;
  }
  const level = Number(url.searchParams.get('http_zlib_compression_level') ?? 3);
  res.writeHead(200, { 'Content-Encoding': codec }).end(await compress[codec](bytes, level));
}
