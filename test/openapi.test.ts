import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../apps/query/src/openapi/document.ts';
import { checkAnswerAgainstDocument, documentedPath } from './support/openapi-check.ts';
import { startTestService, type TestService } from './support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

/** `METHOD /path/{param}` of every handler the all-in-one app registered (middleware and 405 catch-alls aside). */
function registeredOperations(): string[] {
  const found = svc.service.app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')}`);
  return [...new Set(found)].sort();
}

function documentedOperations(): string[] {
  const { paths } = buildOpenApiDocument();
  return Object.entries(paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

describe('the OpenAPI document', () => {
  it('describes every route the service registers, and no route it does not have', () => {
    const registered = registeredOperations();
    expect(registered.length).toBeGreaterThan(50);
    expect(documentedOperations()).toEqual(registered);
  });

  it('is served at /api/v1/openapi.json without a key, as OpenAPI 3.1', async () => {
    const res = await svc.api('/api/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    const served = (await res.json()) as ReturnType<typeof buildOpenApiDocument>;
    expect(served.openapi).toBe('3.1.0');
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(served.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('has a reference page at /api/v1/reference that loads the document', async () => {
    const res = await svc.api('/api/v1/reference', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('./openapi.json');
  });

  it('describes each error answer with the error envelope', async () => {
    const { paths } = buildOpenApiDocument();
    const detail = paths['/api/v1/traces/{traceId}']!.get!;
    expect(Object.keys(detail.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', 'default']));
    expect(detail.responses['404']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  });
});

describe('the check every svc.api call makes', () => {
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('refuses an answer that does not match the documented schema', async () => {
    await expect(checkAnswerAgainstDocument('GET', `${svc.url}/api/v1/traces`, json({ data: 'not a list' }))).rejects.toThrow(
      /GET \/api\/v1\/traces answered 200, not as the OpenAPI document says: .*data\/data must be array/,
    );
    await expect(checkAnswerAgainstDocument('GET', `${svc.url}/api/v1/traces/${'ab'.repeat(16)}`, json({ nope: true }, 404))).rejects.toThrow(
      /must have required property 'error'/,
    );
  });

  it('refuses a success from a route the document does not have, and takes errors there in the envelope', async () => {
    await expect(checkAnswerAgainstDocument('GET', `${svc.url}/api/v1/nowhere`, json({}))).rejects.toThrow(/has no such operation/);
    const notFound = { error: { code: 'not_found', message: 'no route', requestId: 'r' } };
    await expect(checkAnswerAgainstDocument('GET', `${svc.url}/api/v1/nowhere`, json(notFound, 404))).resolves.toBeUndefined();
  });

  it('takes a literal path before a template: /traces/summary is not a trace id', async () => {
    expect(documentedPath('/api/v1/traces/summary')).toBe('/api/v1/traces/summary');
    expect(documentedPath(`/api/v1/traces/${'ab'.repeat(16)}`)).toBe('/api/v1/traces/{traceId}');
  });
});
