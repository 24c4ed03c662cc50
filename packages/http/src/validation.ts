import * as v from 'valibot';
import { ApiError, type ErrorDetail } from './errors.ts';

/** Turns valibot issues into details that name the field, e.g. `limit: must be at most 1000`. */
export function issuesToDetails(issues: readonly v.BaseIssue<unknown>[], root?: string): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    const field = [root, path].filter(Boolean).join('.') || undefined;
    return field ? { field, message: issue.message } : { message: issue.message };
  });
}

/**
 * Parses a value with a schema or throws a 400 listing every problem. A problem with the
 * value as a whole (not an object, no body at all) names `what` as its field.
 */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const details = issuesToDetails(result.issues).map((d) => (d.field ? d : { field: what, ...d }));
  const first = details[0];
  const summary = first ? `${first.field ? `${first.field}: ` : ''}${first.message}` : 'invalid';
  throw new ApiError('invalid_request', `invalid ${what}: ${summary}`, details);
}

/**
 * Query parameters as an object, refusing unknown names and repeats of single-valued
 * ones, so a typo in a filter is a 400 rather than a silently ignored filter.
 */
export function queryParams(
  url: string,
  allowed: { single: readonly string[]; repeated?: readonly string[] },
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const single = new Set(allowed.single);
  const repeated = new Set(allowed.repeated ?? []);
  for (const [key, value] of new URL(url).searchParams) {
    if (repeated.has(key)) {
      const list = Object.hasOwn(out, key) ? (out[key] as string[]) : [];
      list.push(value);
      out[key] = list;
    } else if (single.has(key)) {
      if (Object.hasOwn(out, key)) throw new ApiError('invalid_request', `query parameter ${key} given more than once`, [{ field: key, message: 'given more than once' }]);
      out[key] = value;
    } else {
      const known = [...single, ...repeated].join(', ');
      throw new ApiError('invalid_request', `unknown query parameter ${key} (known: ${known})`, [{ field: key, message: 'unknown parameter' }]);
    }
  }
  return out;
}
