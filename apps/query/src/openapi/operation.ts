import * as v from 'valibot';
import type { JsonSchema, QueryParameter } from './json-schema.ts';

/** The scope a key needs for an operation; null: no key. */
export type Scope = 'ingest' | 'read' | 'write' | 'admin' | null;

/** One answer of an operation: a JSON body described by a schema, or other content. */
export interface Answer {
  description: string;
  /** The JSON body. */
  json?: v.GenericSchema;
  /** Other media types, as OpenAPI writes them (exports, the reference page, OTLP protobuf). */
  content?: Record<string, { schema: JsonSchema }>;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/**
 * One method on one path, as the document describes it. Request parts come from the schemas
 * the route validates with; `errors` lists the error statuses worth naming besides those
 * every operation with a key can answer (400, 401, 403), all in the error envelope.
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template: `/api/v1/traces/{traceId}`. */
  path: string;
  summary: string;
  description?: string;
  scope: Scope;
  /** Path parameters by name, with what each is. */
  pathParams?: Record<string, string>;
  query?: QueryParameter[];
  /** A JSON request body. */
  body?: v.GenericSchema;
  /** Whether the body may be left out (its fields all optional). */
  bodyOptional?: boolean;
  /** A route's own body limit, below API_MAX_BODY_BYTES: what its largest legitimate body takes. */
  maxBodyBytes?: number;
  /** A request body that is not JSON only (the OTLP receiver). */
  requestContent?: Record<string, { schema: JsonSchema }>;
  responses: Record<number, Answer>;
  errors?: number[];
  /** Answers errors in a shape of its own (OTLP): no error envelope is added. */
  ownErrors?: true;
}

/** The `projectId` query parameter of routes that read it alone: it must name the key's project. */
export const projectIdParam: QueryParameter = {
  name: 'projectId',
  in: 'query',
  required: false,
  description: "Must be the key's project when given.",
  schema: { type: 'string' },
};
