import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '@aos/http';

/**
 * Refuses a request body over `maxBytes` with 413 `payload_too_large` naming the limit, so
 * no route reads (and no JSON.parse holds the event loop over) more than it can use. Hono's
 * bodyLimit does the checking: a declared Content-Length is refused before a byte of the body
 * is read; a chunked body is counted while it streams in and refused as soon as it passes the
 * limit, having kept at most `maxBytes` of it. The refusal closes the connection (Node
 * destroys the socket once the answer is written), so the rest of the body is never read.
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
    // @hono/node-server gives GET and HEAD no body stream, so bodyLimit lets them by; Node
    // reads and discards what they carry once they are answered. A declared length is
    // refused all the same; an undeclared (chunked) one is cut off with the connection.
    if (declaredLength(c) > maxBytes) throw bodyTooLarge(maxBytes);
    await next();
    if (c.req.header('transfer-encoding') !== undefined) c.res.headers.set('connection', 'close');
  };
}

function declaredLength(c: Context): number {
  const header = c.req.header('content-length');
  return header === undefined ? 0 : Number(header);
}

/** 413 naming the limit; the connection is closed, not left to carry the rest of the body. */
function bodyTooLarge(maxBytes: number): ApiError {
  const message = `must be at most ${maxBytes} bytes`;
  return new ApiError('payload_too_large', `the request body exceeds the limit of ${maxBytes} bytes`, [{ field: 'body', message }], {
    connection: 'close',
  });
}
