/** The trace query language: `query=` of every endpoint that takes a trace filter. */
export { compileTraceQuery, type CompiledQuery } from './compile.ts';
export { QUERY_FIELDS, type FieldScope, type FieldType, type Operator, type QueryField } from './fields.ts';
export { MAX_LIST_ITEMS, MAX_NESTING, MAX_QUERY_LENGTH, QueryLanguageError } from './errors.ts';
