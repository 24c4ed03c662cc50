import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { buildOpenApiDocument } from '../apps/query/src/openapi/document.ts';
import { startTestService, type TestService } from './support/service.ts';

// Debian's Chromium (scripts/setup.sh installs it for the tests), driven by playwright-core,
// which downloads no browser of its own.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // No name resolves but the service's address: a page that needs another host fails here
  // as it would on a closed network, rather than passing on a machine that has one.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startTestService();
  // Headless, no sandbox (tests run as root) and a fresh profile in a temp folder: playwright's defaults.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

function summaryOf(path: string, method: 'get' | 'post'): string {
  const summary = (buildOpenApiDocument().paths as Record<string, Record<string, { summary?: string }>>)[path]?.[method]?.summary;
  if (!summary) throw new Error(`no summary for ${method} ${path}`);
  return summary;
}

/** The script's bytes as sent, undecoded (fetch would inflate them), for this Accept-Encoding. */
function rawScript(acceptEncoding: string): Promise<{ headers: IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${svc.url}/api/v1/reference/scalar.js`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('the reference page', () => {
  it('names no other host: its script is served by the service', async () => {
    const res = await svc.api('/api/v1/reference', { key: null });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('./openapi.json');
    expect(html).toMatch(/<script src="\.\/reference\/scalar\.js\?v=[\d.]+"><\/script>/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves the script as JavaScript, cacheable, and answers 304 to its ETag', async () => {
    const res = await svc.api('/api/v1/reference/scalar.js', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain('createApiReference');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await svc.api('/api/v1/reference/scalar.js', { key: null, headers: { 'if-none-match': `"other", ${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await svc.api('/api/v1/reference/scalar.js', { key: null, headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();
  });

  it('sends the script gzipped to a client that takes gzip, as it is to one that does not', async () => {
    const plain = await rawScript('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await rawScript('gzip, deflate');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('Accept-Encoding');
    expect(gzipped.headers.etag).not.toBe(plain.headers.etag);
    expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(gunzipSync(gzipped.bytes).equals(plain.bytes)).toBe(true);
  });

  it('renders the operations of the document in headless Chromium, asking no other host for anything', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    // Every request the page makes goes through here: the service's own pass, any other is
    // refused and remembered.
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === svc.url) return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    await page.goto(`${svc.url}/api/v1/reference`);
    // The first tag's operations are listed as the page opens; another tag's once it is
    // opened: the whole document was read and rendered, not just the page's frame drawn.
    const shown = (summary: string) => page.getByText(summary, { exact: true }).first().waitFor({ timeout: 45_000 });
    await shown(summaryOf('/api/v1/traces/otlp', 'post'));
    await page.getByText('api-keys', { exact: true }).first().click();
    await shown(summaryOf('/api/v1/api-keys', 'post'));
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
    // The page parses a document of some 70 operations in the browser: seconds on a busy
    // two-core machine, while the suite's other files run beside it.
  }, 120_000);
});
