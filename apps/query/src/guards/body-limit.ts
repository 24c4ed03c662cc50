import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '@aos/http';

/**
 * Refuses a request body over `maxBytes` with 413 `payload_too_large` naming the limit, so
 * no route reads (and no JSON.parse holds the event loop over) more than it can use. Hono's
 * bodyLimit does the checking: a declared Content-Length is refused before a byte of the body
 * is read; a chunked body is counted while it streams in and refused as soon as it passes the
 * limit, having kept at most `maxBytes` of it.
 *
 * The rest of the body is never kept. @hono/node-server then drops what still arrives for at
 * most 500 ms or 64 MiB and closes the connection: the staged close of RFC 9112 §9.6, which
 * lets a client still sending read the answer. Answering `Connection: close` instead makes
 * Node close the socket with unread bytes in it, which resets the connection, and fetch then
 * failed with EPIPE or ECONNRESET instead of reading the 413 (test/service/request-bodies).
 */
export function bodyLimitGuard(maxBytes: number): MiddlewareHandler {
  const checkBody = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw bodyTooLarge(maxBytes);
    },
  });
  return async (c, next) => {
    if (c.req.raw.body) return checkBody(c, next);
    // @hono/node-server gives GET and HEAD no body stream, so bodyLimit lets them by; nor
    // does it drain one, and Node reads what they carry to its end once they are answered.
    // So they are answered `Connection: close`, which ends the connection there: a declared
    // length over the limit with the 413, an undeclared (chunked) one after the answer.
    if (declaredLength(c) > maxBytes) throw bodyTooLarge(maxBytes, { connection: 'close' });
    await next();
    if (c.req.header('transfer-encoding') !== undefined) c.res.headers.set('connection', 'close');
  };
}

function declaredLength(c: Context): number {
  const header = c.req.header('content-length');
  return header === undefined ? 0 : Number(header);
}

function bodyTooLarge(maxBytes: number, headers: Record<string, string> = {}): ApiError {
  const message = `must be at most ${maxBytes} bytes`;
  return new ApiError('payload_too_large', `the request body exceeds the limit of ${maxBytes} bytes`, [{ field: 'body', message }], headers);
}
