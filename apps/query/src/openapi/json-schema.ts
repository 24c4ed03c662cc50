import * as v from 'valibot';
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';

export type { JsonSchema };

/** Named schemas: where one appears inside another, the document refers to it by name. */
export type SchemaNames = Record<string, v.GenericSchema>;

/**
 * Draft 2020-12 (OpenAPI 3.1's dialect), as clients send it: pipelines stop at their first
 * transformation, so a query parameter parsed from text into a number is described as the
 * text it is. Checks JSON Schema cannot say (custom checks between fields) are left out:
 * the 400 names them.
 */
const CONFIG: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** The JSON Schema of a valibot schema, named schemas referred to under components. */
export function jsonSchemaOf(schema: v.GenericSchema, names: SchemaNames = {}): JsonSchema {
  const { $schema: _dialect, $defs: _defs, ...rest } = toJsonSchema(schema, { ...CONFIG, definitions: names });
  return rest;
}

/** The components.schemas of the document: each named schema converted. */
export function componentSchemasOf(names: SchemaNames): Record<string, JsonSchema> {
  return toJsonSchemaDefs(names, CONFIG);
}

/** An OpenAPI query parameter. */
export interface QueryParameter {
  name: string;
  in: 'query';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

/**
 * The query parameters an object schema of a route parses, one per entry. Array entries are
 * parameters given once per value (`flag=loop&flag=cost_outlier`); the others at most once.
 */
export function queryParametersOf(schema: { entries: v.ObjectEntries }, descriptions: Record<string, string> = {}): QueryParameter[] {
  return Object.entries(schema.entries).map(([name, entry]) => ({
    name,
    in: 'query' as const,
    required: entry.type !== 'optional',
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
    schema: jsonSchemaOf(entry as v.GenericSchema),
  }));
}
