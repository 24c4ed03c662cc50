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

  it('names the body limit of every JSON body, and its 413 answer', () => {
    const described = (where: string) => {
      const { op } = operations.find((o) => o.where === where)!;
      return { body: (op.requestBody as { description: string }).description, answer: (op.responses['413'] as { description: string }).description };
    };
    for (const { where, op } of operations.filter((o) => o.op.requestBody && o.path.startsWith('/api/v1/trace-'))) {
      expect(described(where).body, where).toMatch(/^At most .* bytes.*413 `payload_too_large`/);
      expect(op.responses['413'], where).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    }
    expect(described('POST /api/v1/trace-scores').answer).toContain('At most `API_MAX_BODY_BYTES` (4,194,304 bytes by default)');
    expect(described('PATCH /api/v1/trace-views/{id}').answer).toContain('At most 65,536 bytes (or `API_MAX_BODY_BYTES` when lower)');
    expect(described('POST /api/v1/trace-dimensions').body).toContain('At most 16,384 bytes');
    expect(described('POST /api/v1/trace-masking/test').body).toContain('At most 4,048,576 bytes');
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
