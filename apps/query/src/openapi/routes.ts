import { Hono } from 'hono';
import { Scalar } from '@scalar/hono-api-reference';
import { openApiDocument } from './document.ts';
import { referenceBundle } from './reference-bundle.ts';

/** Where the page loads its script from, relative to the page (as the document is). */
const SCRIPT = './reference/scalar.js';

/**
 * GET /openapi.json (the document), /reference (a page to read and try it) and the script
 * that page runs, served here rather than from a CDN: self-hosted services often sit on a
 * network that reaches nothing else. No key needed.
 */
export function openApiRoutes(): Hono {
  const app = new Hono();
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  // Relative, so the page finds the document and the script behind any path prefix.
  app.get(
    '/reference',
    Scalar(() => ({
      url: './openapi.json',
      pageTitle: 'Agent observability service API',
      cdn: `${SCRIPT}?v=${referenceBundle().version}`,
      // Scalar's default fonts come from its own servers; the system fonts need no network.
      withDefaultFonts: false,
      // Its "Ask AI" panel talks to Scalar's servers; the page stays on this service.
      agent: { disabled: true },
      // Calls tried from the page go straight to the service: the default for a page like
      // this one would send them, key included, through Scalar's hosted proxy.
      proxyUrl: '',
    })),
  );
  app.get('/reference/scalar.js', (c) => {
    const bundle = referenceBundle();
    // The page asks for it with the package's version in the query, so a day's caching
    // never outlives an upgrade; past that day the ETag makes the check a 304.
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('ETag', bundle.etag);
    const seen = c.req.header('if-none-match')?.split(',').map((tag) => tag.trim()) ?? [];
    if (seen.includes(bundle.etag)) return c.body(null, 304);
    return c.body(bundle.body, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  return app;
}
