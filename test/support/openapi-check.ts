import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../apps/query/src/openapi/document.ts';

/**
 * Checks an answer of the service against the OpenAPI document: the JSON body must match the
 * schema documented for its method, path and status (or the operation's `default`). Every
 * integration test that calls the service through `svc.api` runs this, so each of them also
 * tests the document.
 */
const document = buildOpenApiDocument();
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(document, 'openapi');

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Template {
  path: string;
  pattern: RegExp;
  params: number;
}

/** Path templates, literal ones before templated ones: /traces/summary is not the trace "summary". */
const templates: Template[] = Object.keys(document.paths)
  .map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
  }))
  .sort((a, b) => a.params - b.params);

const validators = new Map<string, ValidateFunction>();

function validatorAt(pointer: string[]): ValidateFunction {
  const ref = `openapi#/${pointer.map((p) => encodeURIComponent(p.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

/** The template a request path falls under, if the document has one. */
export function documentedPath(pathname: string): string | undefined {
  return templates.find((t) => t.pattern.test(pathname))?.path;
}

/** Throws when the answer's JSON body is not what the document says of it. */
export async function checkAnswerAgainstDocument(method: string, url: string, res: Response): Promise<void> {
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) return;
  const pathname = new URL(url).pathname;
  const body: unknown = await res.clone().json();
  const m = method.toLowerCase() as Method;
  const path = documentedPath(pathname);
  const operation = path ? document.paths[path]?.[m] : undefined;
  const where = `${method.toUpperCase()} ${pathname} answered ${res.status}`;
  let pointer: string[];
  if (!path || !operation) {
    // A path or method the API does not have: only an error may come back, in the envelope.
    if (res.status < 400) throw new Error(`${where}, but the OpenAPI document has no such operation`);
    pointer = ['components', 'schemas', 'Error'];
  } else {
    const responses = operation.responses as Record<string, { content?: Record<string, unknown> }>;
    const status = String(res.status) in responses ? String(res.status) : 'default';
    if (!responses[status]?.content?.['application/json']) throw new Error(`${where} with JSON, which the OpenAPI document does not describe`);
    pointer = ['paths', path, m, 'responses', status, 'content', 'application/json', 'schema'];
  }
  const validate = validatorAt(pointer);
  if (!validate(body)) {
    throw new Error(`${where}, not as the OpenAPI document says: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}
