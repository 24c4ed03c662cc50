import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Metrics } from './metrics.ts';

/** The label of requests no route matched: their paths are unbounded, so they share one. */
const UNMATCHED = 'unmatched';

/**
 * Times every request and counts it by method, route pattern (`/api/v1/traces/:traceId`,
 * never the URL itself) and status. Registered first on an app, so its own wildcard route
 * is what remains when no route matched.
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const end = metrics.httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      // The route whose handler answered last (a middleware that answered, an auth check
      // say, is its own pattern); this middleware's own wildcard when nothing else did.
      const route = routePath(c);
      end({ method: c.req.method, route: route === '/*' ? UNMATCHED : route, status: String(c.res.status) });
    }
  };
}
