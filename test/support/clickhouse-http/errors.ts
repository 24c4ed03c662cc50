/**
 * Errors in the shape a ClickHouse server gives them over HTTP: a status chosen from the
 * exception code, the code in `X-ClickHouse-Exception-Code`, and the text
 * `Code: N. DB::Exception: message. (NAME)` in the body, which @clickhouse/client parses
 * into a ClickHouseError with `code` and `type`.
 */
export class ServerError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(`Code: ${code}. DB::Exception: ${message}. (${type})`);
  }
}

/** What this endpoint refuses on purpose: a real server would accept it, but a test must not pass on a path it does not run. */
export function notImplemented(what: string): ServerError {
  return new ServerError(48, 'NOT_IMPLEMENTED', `${what} is not implemented by the test ClickHouse endpoint (test/support/clickhouse-http)`);
}

const ENGINE_ERROR = /^Code: (\d+)\. /;

/** The engine's own error text is already in the server's shape; only its code is read back out. */
export function engineErrorCode(message: string): number {
  return Number(ENGINE_ERROR.exec(message)?.[1] ?? 1001);
}

const STATUS_BY_CODE = new Map<number, number>([
  // Syntax and parse errors of the request itself.
  [62, 400], [27, 400], [6, 400], [26, 400], [36, 400], [38, 400], [41, 400], [72, 400], [115, 400], [130, 400], [457, 400],
  // Unknown table, database, function, column (reads as "not found").
  [60, 404], [81, 404], [46, 404], [47, 404],
  // Access: wrong credentials, no right, read-only user.
  [516, 403], [192, 403], [193, 403], [497, 403], [164, 403],
  [48, 501],
]);

/** The HTTP status a server answers for an exception code (Server/HTTP/exceptionCodeToHTTPStatus); 500 for the rest. */
export function httpStatusOf(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}
