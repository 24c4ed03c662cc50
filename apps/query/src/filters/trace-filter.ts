import * as v from 'valibot';
import { DIMENSION_KEY_PATTERN, MAX_DIMENSION_VALUE_CHARS, TRACE_FLAGS } from '@aos/domain';
import {
  QueryLanguageError,
  compileTraceQuery,
  type ApiKeyRecord,
  type Storage,
  type TraceFilter,
} from '@aos/storage';
import { ApiError, parseOrThrow, projectFor } from '@aos/http';
import { definedOnly } from './defined-only.ts';
import { ensureDimensionKeys } from './known-dimensions.ts';
import { numberParam } from './number.ts';
import { readWindow, timeParam } from './time.ts';

/** The query parameters of the trace filter. Every endpoint that takes "a filter" accepts these. */
export const TRACE_FILTER_PARAMS = [
  'startTime',
  'endTime',
  'projectId',
  'environment',
  'status',
  'sessionId',
  'userId',
  'platform',
  'search',
  'query',
  'scoreName',
  'scoreMin',
  'scoreMax',
  'scoreLabel',
] as const;

/** Trace filter parameters that may be given more than once (`flag=loop&flag=cost_outlier`: both). */
export const TRACE_FILTER_REPEATED_PARAMS = ['flag', 'dim'] as const;

const text = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** `dim=key:value`: the key up to the first colon, the value (which may hold colons) after it. */
const dimensionParam = v.pipe(
  v.string(),
  v.check((s) => s.includes(':') && DIMENSION_KEY_PATTERN.test(s.slice(0, s.indexOf(':'))), 'must be key:value with a dimension key before the colon'),
  v.transform((s) => ({ key: s.slice(0, s.indexOf(':')), value: s.slice(s.indexOf(':') + 1) })),
  v.check((d) => d.value.length <= MAX_DIMENSION_VALUE_CHARS, `the value must be at most ${MAX_DIMENSION_VALUE_CHARS} characters`),
);

export const traceFilterSchema = v.object({
  startTime: v.optional(timeParam),
  endTime: v.optional(timeParam),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  environment: v.optional(text(200)),
  status: v.optional(v.picklist(['ok', 'error', 'unset'], 'must be ok, error or unset')),
  sessionId: v.optional(text(500)),
  userId: v.optional(text(500)),
  platform: v.optional(text(200)),
  search: v.optional(text(500)),
  // Its own length and syntax limits are the compiler's, which reports the position.
  query: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  scoreName: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  scoreMin: v.optional(numberParam),
  scoreMax: v.optional(numberParam),
  scoreLabel: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  flag: v.optional(v.array(v.picklist(TRACE_FLAGS, `must be one of ${TRACE_FLAGS.join(', ')}`))),
  dim: v.optional(v.array(dimensionParam)),
});

/** Parses and checks the trace filter once, scoped to the key's project. */
export function parseTraceFilter(query: Record<string, unknown>, key: ApiKeyRecord, now = Date.now()): TraceFilter {
  const names = [...TRACE_FILTER_PARAMS, ...TRACE_FILTER_REPEATED_PARAMS];
  const picked = Object.fromEntries(names.filter((k) => k in query).map((k) => [k, query[k]]));
  const parsed = parseOrThrow(traceFilterSchema, picked, 'filter');
  const { startTimeMs, endTimeMs } = readWindow(parsed.startTime, parsed.endTime, now);
  const { environment, status, sessionId, userId, platform, search, query: queryText } = parsed;
  if (queryText !== undefined) checkQuery(queryText);
  const optional = definedOnly({ environment, status, sessionId, userId, platform, search, query: queryText });
  const flags = parsed.flag && parsed.flag.length > 0 ? { flags: [...new Set(parsed.flag)] } : {};
  const dimensions = parsed.dim && parsed.dim.length > 0 ? { dimensions: parsed.dim } : {};
  return { projectId: projectFor(key, parsed.projectId), startTimeMs, endTimeMs, ...optional, ...scoreFilter(parsed), ...flags, ...dimensions };
}

/**
 * A filter saved as an object (a view's, a monitor's, an evaluator's: the parameters of
 * GET /traces by name) in the form the parser takes: absent values dropped, numbers as
 * text, repeated parameters always as arrays.
 */
export function filterAsQuery(filter: Record<string, string | number | string[] | undefined>): Record<string, string | string[]> {
  const repeated: readonly string[] = TRACE_FILTER_REPEATED_PARAMS;
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value : repeated.includes(name) ? [String(value)] : String(value);
  }
  return out;
}

/** A saved filter's fields without the window and project, which each run supplies (monitors, evaluators). */
export function savedFilterFields(
  filter: Record<string, string | number | string[] | undefined>,
  key: ApiKeyRecord,
): Omit<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs'> {
  const { projectId: _project, startTimeMs: _start, endTimeMs: _end, ...fields } = parseTraceFilter(filterAsQuery(filter), key);
  return fields;
}

/**
 * parseTraceFilter, then checks what only storage knows: a `dim` key must be one of the
 * project's dimensions (anything else would match nothing, silently).
 */
export async function parseTraceFilterCheckingDimensions(
  query: Record<string, unknown>,
  key: ApiKeyRecord,
  storage: Storage,
): Promise<TraceFilter> {
  const filter = parseTraceFilter(query, key);
  await ensureDimensionKeys(storage, filter.projectId, filter.dimensions?.map((d) => d.key) ?? [], 'dim');
  return filter;
}

/** scoreMin / scoreMax / scoreLabel narrow scoreName; alone, or a label with bounds, they mean nothing. */
function scoreFilter(parsed: v.InferOutput<typeof traceFilterSchema>): Pick<TraceFilter, 'score'> {
  const { scoreName: name, scoreMin: min, scoreMax: max, scoreLabel: label } = parsed;
  const bad = (field: string, message: string) => new ApiError('invalid_request', `${field}: ${message}`, [{ field, message }]);
  if (name === undefined) {
    const orphan = (['scoreMin', 'scoreMax', 'scoreLabel'] as const).find((k) => parsed[k] !== undefined);
    if (orphan) throw bad(orphan, 'needs scoreName');
    return {};
  }
  if (label !== undefined && (min !== undefined || max !== undefined)) {
    throw bad('scoreLabel', 'a label filter cannot be combined with scoreMin/scoreMax');
  }
  if (min !== undefined && max !== undefined && min > max) throw bad('scoreMin', 'must not be above scoreMax');
  return {
    score: {
      name,
      ...(min !== undefined ? { min } : {}),
      ...(max !== undefined ? { max } : {}),
      ...(label !== undefined ? { label } : {}),
    },
  };
}

/** Compiles once so a syntax or type error answers 400 with its position, not a failure later. */
function checkQuery(text: string): void {
  try {
    compileTraceQuery(text);
  } catch (err) {
    if (!(err instanceof QueryLanguageError)) throw err;
    throw new ApiError('invalid_request', `query: ${err.message}`, [{ field: 'query', message: err.message }]);
  }
}
