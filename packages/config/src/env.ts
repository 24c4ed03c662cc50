import * as v from 'valibot';

/** A setting read from the environment: its schema turns the raw string (or undefined) into a value. */
export type SettingSchema = v.GenericSchema<string | undefined, unknown>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the named environment variables with their schemas, once, at start.
 * Every problem is reported together, each naming its variable, so a bad deployment
 * fails with one readable message instead of a stack trace from deep inside the code.
 */
export function parseEnv<S extends Record<string, SettingSchema>>(
  schemas: S,
  env: Record<string, string | undefined>,
): { [K in keyof S]: v.InferOutput<S[K]> } {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(schemas)) {
    const raw = env[name];
    const result = v.safeParse(schema, raw === '' ? undefined : raw);
    if (result.success) out[name] = result.output;
    else problems.push(`${name}: ${result.issues.map((i) => i.message).join('; ')} (got ${JSON.stringify(raw)})`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return out as { [K in keyof S]: v.InferOutput<S[K]> };
}

/** An optional integer setting with a default and bounds. */
export function intSetting(defaultValue: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return v.pipe(
    v.optional(v.string(), String(defaultValue)),
    v.regex(/^\d+$/, 'must be a whole number'),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
}

/** An optional integer setting with bounds; undefined when not set. */
export function optionalIntSetting(min: number, max = Number.MAX_SAFE_INTEGER) {
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a whole number'),
      v.transform(Number),
      v.number(),
      v.minValue(min, `must be at least ${min}`),
      v.maxValue(max, `must be at most ${max}`),
    ),
  );
}

/** An optional string setting; undefined when not set. */
export function optionalString() {
  return v.optional(v.string());
}

export function stringSetting(defaultValue: string) {
  return v.optional(v.string(), defaultValue);
}

/** An optional URL setting whose scheme must be one of `protocols` (e.g. 'redis:'). */
export function urlSetting(protocols: readonly string[]) {
  return v.optional(
    v.pipe(
      v.string(),
      v.url('must be a URL'),
      // Runs even when v.url failed (valibot checks on), so it must not throw itself.
      v.check((s) => !URL.canParse(s) || protocols.includes(new URL(s).protocol), `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`),
    ),
  );
}

export function enumSetting<const T extends readonly [string, ...string[]]>(options: T, defaultValue: T[number]) {
  return v.optional(v.picklist(options, `must be one of ${options.join(', ')}`), defaultValue);
}
