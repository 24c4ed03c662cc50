/**
 * A small JSON Schema validator for the `json_schema` check: the keywords agents' output
 * contracts use (type, properties, required, additionalProperties, items, enum, const,
 * bounds, lengths, pattern, allOf/anyOf/oneOf/not). A schema using any other keyword is
 * refused when the evaluator is saved (`unsupportedSchemaKeywords`), so a check never
 * passes by silently ignoring part of its schema.
 */
export type JsonSchema = boolean | { [keyword: string]: unknown };

const SUPPORTED = new Set([
  '$schema', '$id', 'title', 'description', 'examples', 'default',
  'type', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'uniqueItems',
  'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'minProperties', 'maxProperties', 'allOf', 'anyOf', 'oneOf', 'not',
]);
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];

/** Keywords (with their paths) this validator does not implement; empty when the schema is usable. */
export function unsupportedSchemaKeywords(schema: unknown, path = '#'): string[] {
  if (typeof schema === 'boolean') return [];
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [`${path}: a schema must be an object or a boolean`];
  const out: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (!SUPPORTED.has(keyword)) out.push(`${path}/${keyword}`);
    else if (keyword === 'properties' && value && typeof value === 'object') {
      for (const [name, sub] of Object.entries(value)) out.push(...unsupportedSchemaKeywords(sub, `${path}/properties/${name}`));
    } else if ((keyword === 'items' || keyword === 'not' || keyword === 'additionalProperties') && typeof value === 'object') {
      out.push(...unsupportedSchemaKeywords(value, `${path}/${keyword}`));
    } else if (SUBSCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
      value.forEach((sub, i) => out.push(...unsupportedSchemaKeywords(sub, `${path}/${keyword}/${i}`)));
    } else if (keyword === 'pattern' && typeof value === 'string') {
      try {
        new RegExp(value, 'u');
      } catch {
        out.push(`${path}/pattern: not a valid regular expression`);
      }
    }
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: unknown, expected: string): boolean {
  const actual = typeOf(value);
  return actual === expected || (expected === 'number' && actual === 'integer');
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The problems of `value` against `schema` (JSON pointer paths), empty when it conforms. */
export function validateJsonSchema(schema: JsonSchema, value: unknown, path = ''): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path || '/'}: no value is allowed here`];
  const s = schema as Record<string, unknown>;
  const at = path || '/';
  const errors: string[] = [];
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => typeMatches(value, t))) return [`${at}: expected ${types.join(' or ')}, found ${typeOf(value)}`];
  }
  if (s.enum !== undefined && !(s.enum as unknown[]).some((e) => equal(e, value))) errors.push(`${at}: not one of the allowed values`);
  if (s.const !== undefined && !equal(s.const, value)) errors.push(`${at}: must equal ${JSON.stringify(s.const)}`);
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) errors.push(`${at}: below the minimum ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) errors.push(`${at}: above the maximum ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) errors.push(`${at}: must be above ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) errors.push(`${at}: must be below ${s.exclusiveMaximum}`);
    if (typeof s.multipleOf === 'number' && Math.abs(value / s.multipleOf - Math.round(value / s.multipleOf)) > 1e-9) {
      errors.push(`${at}: not a multiple of ${s.multipleOf}`);
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.minLength === 'number' && length < s.minLength) errors.push(`${at}: shorter than ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength} characters`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${at}: does not match ${s.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
    if (s.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) errors.push(`${at}: items are not unique`);
    if (s.items !== undefined && typeof s.items !== 'undefined') {
      value.forEach((item, i) => errors.push(...validateJsonSchema(s.items as JsonSchema, item, `${path}/${i}`)));
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (!(name in object)) errors.push(`${path}/${name}: is required`);
    }
    const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
    for (const key of keys) {
      if (key in properties) errors.push(...validateJsonSchema(properties[key]!, object[key], `${path}/${key}`));
      else if (s.additionalProperties !== undefined) {
        errors.push(...validateJsonSchema(s.additionalProperties as JsonSchema, object[key], `${path}/${key}`));
      }
    }
    if (typeof s.minProperties === 'number' && keys.length < s.minProperties) errors.push(`${at}: fewer than ${s.minProperties} properties`);
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) errors.push(`${at}: more than ${s.maxProperties} properties`);
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as JsonSchema[]) errors.push(...validateJsonSchema(sub, value, path));
  if (Array.isArray(s.anyOf) && !(s.anyOf as JsonSchema[]).some((sub) => validateJsonSchema(sub, value, path).length === 0)) {
    errors.push(`${at}: matches none of anyOf`);
  }
  if (Array.isArray(s.oneOf)) {
    const matching = (s.oneOf as JsonSchema[]).filter((sub) => validateJsonSchema(sub, value, path).length === 0).length;
    if (matching !== 1) errors.push(`${at}: matches ${matching} of oneOf, expected exactly 1`);
  }
  if (s.not !== undefined && validateJsonSchema(s.not as JsonSchema, value, path).length === 0) errors.push(`${at}: matches the schema under not`);
  return errors;
}
