/**
 * Which conventions' key prefixes a span's attributes use, found in one pass over its keys.
 *
 * Most readers look up a dozen keys or more, and on a span of another convention every
 * lookup misses: ~120 misses a span cost more than the rest of a reader's work. A reader
 * whose keys all start with known prefixes is skipped when no key has one of them
 * (extract.ts); a key a reader reads must therefore start with its family's prefix.
 */
import type { Attributes } from '@aos/otlp';

/** `ai.*`: the Vercel AI SDK. */
export const AI_KEYS = 1;
/** `lk.*`: LiveKit Agents. */
export const LIVEKIT_KEYS = 2;
/** `langfuse.*`: the Langfuse SDKs. */
export const LANGFUSE_KEYS = 4;
/** `traceloop.*`: OpenLLMetry's framework spans. */
export const TRACELOOP_KEYS = 8;
/** `llm.*`: OpenInference, and OpenLLMetry's `llm.request.type`. */
export const LLM_KEYS = 16;
/** `gcp.vertex.agent.*`: Google ADK. */
export const GOOGLE_ADK_KEYS = 32;
/** OpenInference's other keys: `openinference.*`, `embedding.*`, `input.*`, `output.*`, `tool.*`, `tool_call.*`, `agent.*`, `session.*`, `user.*`. */
export const OPENINFERENCE_KEYS = 64;
/** `gen_ai.*`: GenAI semconv, which many instrumentations write beside their own keys. */
export const GENAI_KEYS = 128;
/** `gen_ai.usage.*`: token counts and cost. */
export const GENAI_USAGE_KEYS = 256;
/** `gen_ai.prompt*` and `gen_ai.completion*`: the older indexed and flat message keys. */
export const GENAI_PROMPT_KEYS = 512;
/** `mastra.*`: Mastra. */
export const MASTRA_KEYS = 1024;
/** `genkit:*`: Genkit. */
export const GENKIT_KEYS = 2048;
/** `mlflow.*`: MLflow. */
export const MLFLOW_KEYS = 4096;
/** Pydantic AI's keys, most without a prefix of their own: `pydantic_ai.*`, `all_messages_events`, `final_result`, `agent_name`, `tool_arguments`. */
export const PYDANTIC_AI_KEYS = 8192;
/** `platform`: an explicit platform name. */
export const PLATFORM_KEYS = 16384;
/** `deployment.environment*`: the environment's semconv names. */
export const DEPLOYMENT_ENVIRONMENT_KEYS = 32768;

/** A prefix, its family, and the longer prefixes tested only after it (written without it). */
type Prefix = readonly [prefix: string, family: number, longer?: PrefixTable];
/** Prefixes by their first character code, so a key is tested against one to three of them. */
type PrefixTable = readonly (readonly Prefix[] | undefined)[];

function prefixTable(prefixes: readonly Prefix[]): PrefixTable {
  const table: Prefix[][] = [];
  for (const entry of prefixes) (table[entry[0].charCodeAt(0)] ??= []).push(entry);
  return table;
}

const PREFIXES = prefixTable([
  ['ai.', AI_KEYS],
  ['lk.', LIVEKIT_KEYS],
  ['langfuse.', LANGFUSE_KEYS],
  ['traceloop.', TRACELOOP_KEYS],
  ['llm.', LLM_KEYS],
  ['gcp.vertex.agent.', GOOGLE_ADK_KEYS],
  [
    'gen_ai.',
    GENAI_KEYS,
    prefixTable([
      ['usage.', GENAI_USAGE_KEYS],
      ['prompt', GENAI_PROMPT_KEYS],
      ['completion', GENAI_PROMPT_KEYS],
    ]),
  ],
  ['openinference.', OPENINFERENCE_KEYS],
  ['embedding.', OPENINFERENCE_KEYS],
  ['input.', OPENINFERENCE_KEYS],
  ['output.', OPENINFERENCE_KEYS],
  ['tool.', OPENINFERENCE_KEYS],
  ['tool_call.', OPENINFERENCE_KEYS],
  ['agent.', OPENINFERENCE_KEYS],
  ['session.', OPENINFERENCE_KEYS],
  ['user.', OPENINFERENCE_KEYS],
  ['mastra.', MASTRA_KEYS],
  ['genkit:', GENKIT_KEYS],
  ['mlflow.', MLFLOW_KEYS],
  ['pydantic_ai.', PYDANTIC_AI_KEYS],
  ['all_messages_events', PYDANTIC_AI_KEYS],
  ['final_result', PYDANTIC_AI_KEYS],
  ['agent_name', PYDANTIC_AI_KEYS],
  ['tool_arguments', PYDANTIC_AI_KEYS],
  ['platform', PLATFORM_KEYS],
  ['deployment.environment', DEPLOYMENT_ENVIRONMENT_KEYS],
]);

function familiesOf(key: string, table: PrefixTable, from: number): number {
  const candidates = table[key.charCodeAt(from)];
  if (candidates === undefined) return 0;
  let families = 0;
  for (let i = 0; i < candidates.length; i++) {
    // Read by index, not destructured: this runs for every key of every span.
    const entry = candidates[i]!;
    if (!key.startsWith(entry[0], from)) continue;
    families |= entry[1];
    if (entry[2] !== undefined) families |= familiesOf(key, entry[2], from + entry[0].length);
  }
  return families;
}

/**
 * Each key's families, remembered: the same few dozen keys come on every span, and a map
 * lookup costs a third of testing the prefixes again. Bounded so a stream of distinct keys
 * cannot grow it without limit.
 */
const MAX_REMEMBERED_KEYS = 10_000;
const familiesByKey = new Map<string, number>();

/** The families (bit set of the constants above) whose prefix starts some key of `attributes`. */
export function keyFamilies(attributes: Attributes): number {
  let families = 0;
  for (const key in attributes) {
    let ofKey = familiesByKey.get(key);
    if (ofKey === undefined) {
      ofKey = familiesOf(key, PREFIXES, 0);
      if (familiesByKey.size >= MAX_REMEMBERED_KEYS) familiesByKey.clear();
      familiesByKey.set(key, ofKey);
    }
    families |= ofKey;
  }
  return families;
}
