import { Hono } from 'hono';
import { Scalar } from '@scalar/hono-api-reference';
import { openApiDocument } from './document.ts';

/** GET /openapi.json (the document) and /reference (a page to read and try it); no key needed. */
export function openApiRoutes(): Hono {
  const app = new Hono();
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  // Relative, so the page finds the document behind any path prefix.
  app.get('/reference', Scalar({ url: './openapi.json', pageTitle: 'Agent observability service API' }));
  return app;
}
