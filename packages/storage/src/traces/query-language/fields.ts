import { METADATA_PREFIXES, SPAN_QUALITY_FLAGS, SPAN_STATUSES, SPAN_TYPES } from '@aos/domain';
import { attributeExistsSql, attributeValueSql } from '../../sql/attribute-value.ts';

/**
 * The field catalogue of the trace query language: what a query may name, and the SQL
 * each name stands for. SQL reaches a query only from here; values and map keys are
 * always bound parameters.
 */

export type FieldType = 'string' | 'number' | 'duration' | 'enum' | 'map' | 'score' | 'array';
export type Operator = '=' | '!=' | '>' | '>=' | '<' | '<=' | 'in' | 'contains' | 'startswith' | 'exists';
/** `trace`: usable at the top of a query; `span`: usable inside `has span(...)`. */
export type FieldScope = 'trace' | 'span';

/** One entry of GET /api/v1/traces/query-fields. */
export interface QueryField {
  name: string;
  scope: FieldScope;
  type: FieldType;
  operators: Operator[];
  description: string;
  example: string;
  /** The values the field can take, when the set is closed. */
  values?: string[];
}

/** A catalogue entry with the SQL behind it. */
export interface FieldBinding extends QueryField {
  /** Written with a key: `attributes["k"]`, `score["k"]`. */
  keyed: boolean;
  /** The value's SQL over the aggregated trace row (scope trace) or a `spans` row (scope span). */
  sql?: string;
  /** Keyed fields: the value's and the key's existence SQL, given the key's parameter placeholder. */
  keyedSql?: (key: string) => { value: string; exists: string };
  /** A trace field that matches when any span of the trace does: compiled as the span field of the same name. */
  anySpan?: true;
  /** `score[...]`: matched against the trace's scores. */
  score?: true;
}

const COMPARE: Operator[] = ['=', '!=', '>', '>=', '<', '<='];
const OPERATORS: Record<FieldType, Operator[]> = {
  string: ['=', '!=', 'in', 'contains', 'startswith', 'exists'],
  number: [...COMPARE, 'in'],
  duration: [...COMPARE, 'in'],
  enum: ['=', '!=', 'in'],
  array: ['=', '!=', 'in', 'contains', 'startswith', 'exists'],
  map: [...COMPARE, 'in', 'contains', 'startswith', 'exists'],
  score: [...COMPARE, 'in', 'exists'],
};

/** The value of a span attribute; one promoted to another column is read from that column. */
function attributeSql(key: string) {
  return { value: attributeValueSql(key, "''"), exists: attributeExistsSql(key) };
}

/** Where the conventions put metadata: flattened under a prefix, or a JSON object in `metadata` (OpenInference). */
function metadataSql(key: string) {
  const json = "attributes['metadata']";
  const prefixed = METADATA_PREFIXES.map((p) => `attributes[concat('${p}', ${key})]`);
  const present = METADATA_PREFIXES.map((p) => `mapContains(attributes, concat('${p}', ${key}))`);
  const branches = present.map((cond, i) => `${cond}, ${prefixed[i]}`).join(', ');
  return {
    value: `multiIf(${branches}, JSONHas(${json}, ${key}), if(JSONType(${json}, ${key}) = 'String', JSONExtractString(${json}, ${key}), JSONExtractRaw(${json}, ${key})), '')`,
    exists: `(${present.join(' OR ')} OR JSONHas(${json}, ${key}))`,
  };
}

function resourceSql(key: string) {
  return { value: `resource_attributes[${key}]`, exists: `mapContains(resource_attributes, ${key})` };
}

/** Tags as OpenInference (`tag.tags`) and Langfuse (`langfuse.trace.tags`) send them: a JSON array of strings. */
const TAGS_SQL = "arrayConcat(JSONExtract(attributes['tag.tags'], 'Array(String)'), JSONExtract(attributes['langfuse.trace.tags'], 'Array(String)'))";

type Entry = Omit<FieldBinding, 'scope' | 'operators' | 'keyed'> & { operators?: Operator[] };

function fields(scope: FieldScope, entries: Entry[]): FieldBinding[] {
  return entries.map((e) => ({ ...e, scope, keyed: e.keyedSql !== undefined || e.score === true, operators: e.operators ?? OPERATORS[e.type] }));
}

const FLAG_OPERATORS: Operator[] = ['=', '!=', 'in', 'exists'];

const SPAN_FIELDS = fields('span', [
  { name: 'name', type: 'string', sql: 'name', description: 'The span name.', example: 'has span(name = "search")' },
  { name: 'type', type: 'enum', sql: 'span_type', values: [...SPAN_TYPES], description: 'What the span does (agent, llm, tool, retrieval…).', example: 'has span(type = "tool")' },
  { name: 'status', type: 'enum', sql: 'status', values: [...SPAN_STATUSES], description: 'The span status.', example: 'has span(status = "error")' },
  { name: 'model', type: 'string', sql: 'model', description: 'The model the span called.', example: 'has span(model startswith "gpt-4")' },
  { name: 'provider', type: 'string', sql: 'provider', description: 'The model provider.', example: 'has span(provider = "openai")' },
  { name: 'tool', type: 'string', sql: 'tool_name', description: 'The tool a tool span ran.', example: 'has span(tool = "web_search")' },
  { name: 'duration', type: 'duration', sql: 'duration_ms', description: 'The span duration; plain numbers are milliseconds.', example: 'has span(duration > 2s)' },
  { name: 'cost', type: 'number', sql: 'cost', description: 'The span cost in USD.', example: 'has span(cost > 0.01)' },
  { name: 'tokens', type: 'number', sql: 'total_tokens', description: 'Total tokens of the span.', example: 'has span(tokens > 1000)' },
  { name: 'inputTokens', type: 'number', sql: 'input_tokens', description: 'Input tokens of the span.', example: 'has span(inputTokens > 1000)' },
  { name: 'outputTokens', type: 'number', sql: 'output_tokens', description: 'Output tokens of the span.', example: 'has span(outputTokens > 500)' },
  { name: 'input', type: 'string', sql: 'input', description: 'The span input text.', example: 'has span(input contains "refund")' },
  { name: 'output', type: 'string', sql: 'output', description: 'The span output text.', example: 'has span(output contains "sorry")' },
  { name: 'tag', type: 'array', sql: TAGS_SQL, description: 'Tags of the span (attributes tag.tags, langfuse.trace.tags).', example: 'has span(tag = "beta")' },
  { name: 'flag', type: 'array', sql: 'quality_flags', values: [...SPAN_QUALITY_FLAGS], operators: FLAG_OPERATORS, description: 'Data-quality flags of the span.', example: 'has span(flag = "unknown_model_price")' },
  { name: 'attributes', type: 'map', keyedSql: attributeSql, description: 'A span attribute by key (numbers compare numerically).', example: 'has span(attributes["http.status_code"] >= 500)' },
  { name: 'metadata', type: 'map', keyedSql: metadataSql, description: 'A metadata entry by key (metadata.*, ai.telemetry.metadata.*, langfuse.*.metadata.*, or the OpenInference metadata object).', example: 'has span(metadata["customer"] = "acme")' },
  { name: 'resource', type: 'map', keyedSql: resourceSql, description: 'A resource attribute by key.', example: 'has span(resource["host.name"] startswith "worker-")' },
]);

const ANY_SPAN = 'Matches when any span of the trace does; != and not mean that none does.';

const TRACE_FIELDS = fields('trace', [
  { name: 'status', type: 'enum', sql: 'trace_status', values: ['ok', 'error', 'unset'], description: 'error when any span failed, else ok when any span said ok, else unset.', example: 'status = "error"' },
  { name: 'name', type: 'string', sql: 'trace_name', description: 'The name of the root span.', example: 'name contains "checkout"' },
  { name: 'input', type: 'string', sql: 'trace_input', description: "The input of the trace: its root span's, else its first agent or LLM input.", example: 'input contains "refund"' },
  { name: 'output', type: 'string', sql: 'trace_output', description: "The output of the trace: its root span's, else its last agent or LLM output.", example: 'output contains "sorry"' },
  { name: 'duration', type: 'duration', sql: 'trace_duration_ms', description: 'From the first span start to the last span end; plain numbers are milliseconds.', example: 'duration > 2s' },
  { name: 'cost', type: 'number', sql: 'trace_cost', description: 'The trace cost in USD.', example: 'cost >= 0.05' },
  { name: 'tokens', type: 'number', sql: 'trace_total_tokens', description: 'Total tokens of the trace.', example: 'tokens > 10000' },
  { name: 'inputTokens', type: 'number', sql: 'trace_input_tokens', description: 'Input tokens of the trace.', example: 'inputTokens > 8000' },
  { name: 'outputTokens', type: 'number', sql: 'trace_output_tokens', description: 'Output tokens of the trace.', example: 'outputTokens > 2000' },
  { name: 'spans', type: 'number', sql: 'span_count', description: 'Number of spans in the trace.', example: 'spans > 50' },
  { name: 'errors', type: 'number', sql: 'error_count', description: 'Number of failed spans in the trace.', example: 'errors >= 1' },
  { name: 'model', type: 'array', sql: 'trace_models', description: 'Models called in the trace, one entry per model (a name also reported with a snapshot suffix, gpt-4o beside gpt-4o-2024-08-06, is listed by the longer one); = means one of them is.', example: 'model = "gpt-4o"' },
  { name: 'provider', type: 'string', anySpan: true, description: `Model provider of a span. ${ANY_SPAN}`, example: 'provider = "anthropic"' },
  { name: 'environment', type: 'string', sql: 'trace_environment', description: 'Deployment environment.', example: 'environment in ["prod", "staging"]' },
  { name: 'platform', type: 'string', sql: 'trace_platform', description: 'Instrumentation platform (openinference, vercel-ai…).', example: 'platform = "vercel-ai"' },
  { name: 'session', type: 'string', sql: 'trace_session_id', description: 'Session id.', example: 'session exists' },
  { name: 'user', type: 'string', sql: 'trace_user_id', description: 'User id.', example: 'user = "u_123"' },
  { name: 'service', type: 'string', sql: 'trace_service_name', description: 'Service name (resource service.name).', example: 'service = "support-agent"' },
  { name: 'tag', type: 'array', anySpan: true, description: `Tags (attributes tag.tags, langfuse.trace.tags). ${ANY_SPAN}`, example: 'tag = "beta"' },
  { name: 'flag', type: 'array', anySpan: true, values: [...SPAN_QUALITY_FLAGS], operators: FLAG_OPERATORS, description: `Data-quality flags of a span. ${ANY_SPAN}`, example: 'flag = "missing_token_counts"' },
  { name: 'attributes', type: 'map', anySpan: true, keyedSql: attributeSql, description: `A span attribute by key (numbers compare numerically). ${ANY_SPAN}`, example: 'attributes["customer.tier"] = "gold"' },
  { name: 'metadata', type: 'map', anySpan: true, keyedSql: metadataSql, description: `A metadata entry by key. ${ANY_SPAN}`, example: 'metadata["experiment"] exists' },
  { name: 'resource', type: 'map', anySpan: true, keyedSql: resourceSql, description: `A resource attribute by key. ${ANY_SPAN}`, example: 'resource["k8s.namespace.name"] = "prod"' },
  { name: 'score', type: 'score', score: true, description: 'A score of the trace or one of its spans, by name: numbers and booleans compare the value, text the label. != means no such score.', example: 'score["helpfulness"] > 0.5' },
]);

const byName = (list: FieldBinding[]) => new Map(list.map((f) => [f.name.toLowerCase(), f]));
const TRACE_BY_NAME = byName(TRACE_FIELDS);
const SPAN_BY_NAME = byName(SPAN_FIELDS);

/** The catalogue entry of a field name (case-insensitive) in a scope. */
export function lookupField(scope: FieldScope, name: string): FieldBinding | undefined {
  return (scope === 'trace' ? TRACE_BY_NAME : SPAN_BY_NAME).get(name.toLowerCase());
}

/** The span field a trace field of `anySpan` is compiled as. */
export function spanFieldOf(field: FieldBinding): FieldBinding {
  const span = SPAN_BY_NAME.get(field.name.toLowerCase());
  if (!span) throw new Error(`trace field ${field.name} has no span field`);
  return span;
}

/** The field names of a scope, for error messages. */
export function fieldNames(scope: FieldScope): string[] {
  return (scope === 'trace' ? TRACE_FIELDS : SPAN_FIELDS).map((f) => f.name);
}

/** The catalogue as GET /api/v1/traces/query-fields returns it: trace fields, then span fields (inside has span(...)). */
export const QUERY_FIELDS: QueryField[] = [...TRACE_FIELDS, ...SPAN_FIELDS].map((f) => ({
  name: f.name,
  scope: f.scope,
  type: f.type,
  operators: [...f.operators],
  description: f.description,
  example: f.example,
  ...(f.values ? { values: [...f.values] } : {}),
}));
