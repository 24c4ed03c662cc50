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
    Scalar(async () => ({
      url: './openapi.json',
      pageTitle: 'Agent observability service API',
      cdn: `${SCRIPT}?v=${(await referenceBundle()).version}`,
      // Scalar's default fonts come from its own servers; the system fonts need no network.
      withDefaultFonts: false,
      // Its "Ask AI" panel talks to Scalar's servers; the page stays on this service.
      agent: { disabled: true },
      // Calls tried from the page go straight to the service: the default for a page like
      // this one would send them, key included, through Scalar's hosted proxy.
      proxyUrl: '',
    })),
  );
  app.get('/reference/scalar.js', async (c) => {
    const bundle = await referenceBundle();
    const body = acceptsGzip(c.req.header('accept-encoding')) ? bundle.gzip : bundle.plain;
    // The page asks for it with the package's version in the query, so a day's caching
    // never outlives an upgrade; past that day the ETag makes the check a 304.
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('Vary', 'Accept-Encoding');
    c.header('ETag', body.etag);
    const seen = c.req.header('if-none-match')?.split(',').map((tag) => tag.trim()) ?? [];
    // Either form's tag: the client holds this version of the script, whichever it was sent.
    if (seen.includes(bundle.plain.etag) || seen.includes(bundle.gzip.etag)) return c.body(null, 304);
    if (body === bundle.gzip) c.header('Content-Encoding', 'gzip');
    return c.body(body.bytes, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  return app;
}

/** Whether an Accept-Encoding header takes gzip (named or `*`, not with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((entry) => {
    const [coding, ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}
