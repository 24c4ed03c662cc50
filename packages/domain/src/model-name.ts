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
