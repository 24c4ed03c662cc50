import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './document.ts';

const document = buildOpenApiDocument();
type Item = Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: unknown; responses: Record<string, unknown> }>;
const operations = Object.entries(document.paths as Record<string, Item>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, method, path, op })),
);

describe('the OpenAPI document', () => {
  it('has only schemas a JSON Schema 2020-12 validator compiles, and every reference resolves', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(document, 'openapi');
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }), name).not.toThrow();
    }
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) expect(document.components.schemas, ref).toHaveProperty(ref);
  });

  it('describes a body for every write that takes one, and an answer for every operation', () => {
    for (const { where, op } of operations) {
      expect(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), where).toBe(true);
    }
    const withBody = operations.filter((o) => o.op.requestBody).map((o) => o.where);
    expect(withBody).toEqual(
      expect.arrayContaining(['POST /api/v1/trace-scores', 'POST /api/v1/trace-monitors', 'PATCH /api/v1/trace-views/{id}', 'POST /api/v1/traces/otlp']),
    );
    expect(withBody.every((w) => !w.startsWith('GET'))).toBe(true);
  });

  it("takes query parameters from the routes' own schemas", () => {
    const list = operations.find((o) => o.where === 'GET /api/v1/traces')!.op;
    const names = list.parameters!.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['startTime', 'endTime', 'query', 'flag', 'dim', 'limit', 'cursor', 'sortBy', 'sortOrder']));
    const limit = list.parameters!.find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'string', pattern: '^\\d+$', default: '50' } });
  });

  it('names the key header and the scope of each operation that needs one', () => {
    expect(document.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    const keys = operations.find((o) => o.where === 'POST /api/v1/api-keys')!.op as unknown as Record<string, unknown>;
    expect(keys['x-scope']).toBe('admin');
    const health = operations.find((o) => o.where === 'GET /healthz')!.op as unknown as Record<string, unknown>;
    expect(health.security).toEqual([]);
  });
});
