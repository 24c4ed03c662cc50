import { randomUUID } from 'node:crypto';
import type { Context, Env, ErrorHandler, Hono, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '@aos/log';
import { budgetExceeded, isStorageUnavailable } from '@aos/storage';

/** The closed set of error codes the API answers with. */
export const ERROR_CODES = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  /** A read whose statement ran out of its row, byte or memory budget: narrow it. */
  query_too_expensive: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  /** A read whose statement ran out of its time budget, or a request its client gave up on. */
  timeout: 503,
} as const satisfies Record<string, ContentfulStatusCode>;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetail {
  /** Where the problem is: a query parameter, a body path. */
  field?: string;
  message: string;
}

/** An error the client can act on; mapped to `{"error":{code,message,details,requestId}}`. */
export class ApiError extends HTTPException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(ERROR_CODES[code], { message });
  }
}

export function errorBody(code: ErrorCode, message: string, requestId: string, details: ErrorDetail[] = []) {
  return { error: { code, message, ...(details.length > 0 ? { details } : {}), requestId } };
}

export function requestIdOf(c: Context): string {
  return c.req.header('x-request-id') ?? randomUUID();
}

/** The one place errors become responses. A 500 never carries an internal message. */
export function apiErrorHandler(logger: Logger): ErrorHandler {
  return (err, c) => {
    const requestId = requestIdOf(c);
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      return c.json(errorBody(err.code, err.message, requestId, err.details), ERROR_CODES[err.code]);
    }
    if (err instanceof HTTPException && err.status < 500) {
      const code = (Object.entries(ERROR_CODES).find(([, s]) => s === err.status)?.[0] ?? 'invalid_request') as ErrorCode;
      return c.json(errorBody(code, err.message || code, requestId), err.status as ContentfulStatusCode);
    }
    if (c.req.raw.signal.aborted) {
      // The client went away (or Node cut it off as too slow, HTTP_REQUEST_TIMEOUT_MS, and
      // answered 408 itself): what failed after that (an unfinished body, an aborted
      // statement) is no fault of storage. This answer reaches nobody.
      logger.info('request aborted by the client', { requestId, path: c.req.path });
      return c.json(errorBody('timeout', 'the client closed the request before it was answered', requestId), 503);
    }
    const exceeded = budgetExceeded(err);
    if (exceeded) {
      // The engine's words (limits, row counts) stay in the log; the client learns which budget ran out.
      logger.info('read over budget', { requestId, path: c.req.path, budget: exceeded, error: err.message });
      return exceeded === 'timeout'
        ? c.json(errorBody('timeout', 'the read ran past its time budget; narrow the window or the filter, or retry later', requestId), 503, { 'retry-after': '5' })
        : c.json(errorBody('query_too_expensive', 'the read would need more rows, bytes or memory than its budget allows; narrow the window or the filter', requestId), 422);
    }
    if (isStorageUnavailable(err)) {
      // Transient: clients (and their retry logic) should see it as such, not as a bug.
      logger.warn('storage unavailable', { requestId, path: c.req.path, error: err });
      c.header('retry-after', '5');
      return c.json(errorBody('unavailable', 'storage is unavailable right now; retry later', requestId), 503);
    }
    logger.error('unhandled error', { requestId, path: c.req.path, error: err });
    return c.json(errorBody('internal', 'internal error; see the server log for this request id', requestId), 500);
  };
}

const apiNotFound: NotFoundHandler = (c) =>
  c.json(errorBody('not_found', `no route for ${c.req.method} ${c.req.path}`, requestIdOf(c)), 404);

/**
 * Every app answers errors and unknown routes with the API's error envelope: the service
 * app each process starts from (@aos/metrics' createServiceApp) and any app a test builds.
 */
export function useApiErrors<E extends Env>(app: Hono<E>, logger: Logger): void {
  app.onError(apiErrorHandler(logger));
  app.notFound(apiNotFound);
}
