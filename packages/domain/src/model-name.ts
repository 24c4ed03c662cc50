/**
 * Spellings of a reported model name to try against the price table, from the
 * most literal to the most normalised. All lower-case.
 *
 *   "openai/gpt-4o", "models/gemini-1.5-pro", "vertex_ai/..."  → last path segment
 *   "us.anthropic.claude-3-5-sonnet-20241022-v2:0" (Bedrock)    → region and vendor dropped
 *   "gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022",
 *   "mistral-large-2411", "gemini-2.0-flash-001", "-latest",
 *   "gemini-2.5-pro-preview-05-06", "claude-sonnet-4@20250514"  → snapshot suffix dropped
 *   "claude-3.5-sonnet" (OpenRouter style)                     → "claude-3-5-sonnet"
 */

const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|ap|au|ca|jp|global|us-gov)\.)?(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|writer)\./;

/** Stripped repeatedly until none applies; order only matters for readability. */
const SNAPSHOT_SUFFIXES = [
  /@.*$/, // Vertex AI version pin
  /-v\d+(?::\d+)?$/, // Bedrock "-v1:0", Vertex "-v2"
  /:\d+$/, // Bedrock throughput suffix
  /-\d{4}-\d{2}-\d{2}$/, // OpenAI snapshot date
  /-\d{8}$/, // Anthropic snapshot date
  /-\d{2}-\d{2}$/, // Gemini preview date
  /-\d{3,4}$/, // "-001", "-0613", "-2411"
  /-(?:latest|preview|exp)$/,
];

/**
 * A run of one or more snapshot suffixes making up a whole text (`-2024-08-06`,
 * `-20241022-v2:0`), as a regular expression both JavaScript and ClickHouse (RE2) read.
 */
export const SNAPSHOT_SUFFIX_RUN = `^(?:${SNAPSHOT_SUFFIXES.map((suffix) => suffix.source.replace(/\$$/, '')).join('|')})+$`;
const SNAPSHOT_SUFFIX_RUN_RE = new RegExp(SNAPSHOT_SUFFIX_RUN);

/** Lower-cases ASCII letters only, as ClickHouse's lower() does (models are compared the same on both sides). */
const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * Whether `general` names the model `specific` names, less precisely: `specific` is
 * `general` (ignoring ASCII case) followed by snapshot suffixes only. `gpt-4o` for
 * `gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022` for `claude-3-5-sonnet-20241022-v2:0`;
 * never `gpt-4o` for `gpt-4o-mini`, nor across provider prefixes (`openai/gpt-4o` and
 * `azure/gpt-4o` are deployments of their own, priced apart).
 */
export function isLessSpecificModelName(general: string, specific: string): boolean {
  const g = asciiLower(general);
  const s = asciiLower(specific);
  return s !== g && s.startsWith(g) && SNAPSHOT_SUFFIX_RUN_RE.test(s.slice(g.length));
}

/**
 * One entry per model: the names of `models` that no other of them names more precisely,
 * in the given order. A trace whose wrapper span reports `gpt-4o` and whose model call
 * reports the snapshot that served it, `gpt-4o-2024-08-06`, used one model, and the
 * snapshot says which. Two snapshots of one model (`gpt-4o-2024-05-13`, `gpt-4o-2024-08-06`)
 * stay two entries: each says what served some call. traces/aggregate.ts in storage
 * applies the same rule in SQL (DISTINCT_MODELS_SQL).
 */
export function distinctModels(models: readonly string[]): string[] {
  return models.filter((m) => !models.some((other) => isLessSpecificModelName(m, other)));
}

export function stripProviderPrefix(name: string): string {
  const slash = name.lastIndexOf('/');
  const lastSegment = slash >= 0 ? name.slice(slash + 1) : name;
  return lastSegment.replace(BEDROCK_PREFIX, '');
}

export function stripSnapshotSuffix(name: string): string {
  let current = name;
  for (let changed = true; changed; ) {
    changed = false;
    for (const suffix of SNAPSHOT_SUFFIXES) {
      const next = current.replace(suffix, '');
      if (next !== current && next !== '') {
        current = next;
        changed = true;
      }
    }
  }
  return current;
}

export function modelNameCandidates(model: string): string[] {
  const exact = model.trim().toLowerCase();
  const unprefixed = stripProviderPrefix(exact);
  const undated = stripSnapshotSuffix(unprefixed);
  const candidates = [exact, unprefixed, undated];
  // Anthropic ids use dashes between version digits; some gateways write dots.
  if (undated.startsWith('claude')) candidates.push(undated.replace(/(\d)\.(\d)/g, '$1-$2'));
  return [...new Set(candidates)];
}
