/**
 * Runs the convention readers over one span and settles span type and platform.
 *
 * Reader order is priority order (first value wins per field; for input and output, the
 * first reader that says what the span received or returned, as messages or as text):
 *   1. Vercel AI SDK — its spans also carry gen_ai.* copies, which are less specific;
 *   2. Mastra — its model spans are GenAI semconv, its agent runs and tools say more;
 *   3. OpenInference;
 *   4. OpenLLMetry — framework spans (traceloop.*) and llm.request.type;
 *   5. Pydantic AI, Google ADK, LiveKit Agents, Genkit, MLflow, Semantic Kernel and the
 *      Langfuse SDKs — agent runs, model calls and tools of their own keys;
 *   6. GenAI semconv — also the shared gen_ai.* layer of 1, 2, 4 and 5;
 *   7. generic keys on the span (`input.value` / `output.value`, session, user), then on the resource.
 *
 * Span type when no convention states one: a model with token counts is an `llm`
 * call, a tool name alone makes a `tool` span, anything else is a plain `span`.
 */
import type { OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstText, textOf } from '../attributes.ts';
import { emptyFacts, hasTokenCounts, type SpanFacts } from './facts.ts';
import { GENAI_MARKER_KEYS, readGenAi } from './genai.ts';
import { GENKIT_TYPE_KEY, readGenkit } from './genkit.ts';
import { GOOGLE_ADK_SCOPE, readGoogleAdk } from './google-adk.ts';
import { AI_KEYS, GENAI_KEYS, GENKIT_KEYS, GOOGLE_ADK_KEYS, keyFamilies, LANGFUSE_KEYS, LIVEKIT_KEYS, LLM_KEYS, MASTRA_KEYS, MLFLOW_KEYS, OPENINFERENCE_KEYS, PLATFORM_KEYS, PYDANTIC_AI_KEYS, TRACELOOP_KEYS } from './key-families.ts';
import { LANGFUSE_MARKER_KEYS, LANGFUSE_SCOPE, readLangfuse } from './langfuse.ts';
import { LIVEKIT_MARKER_KEYS, readLiveKit } from './livekit.ts';
import { MASTRA_SPAN_TYPE_KEY, readMastra } from './mastra.ts';
import { MLFLOW_SPAN_TYPE_KEY, readMlflow } from './mlflow.ts';
import { OPENINFERENCE_KIND_KEY, readOpenInference, readPlainTexts } from './openinference.ts';
import { OPENLLMETRY_MARKER_KEYS, readOpenLlmetry } from './openllmetry.ts';
import { PYDANTIC_AI_MARKER_KEYS, PYDANTIC_AI_SCOPE, readPydanticAi } from './pydantic-ai.ts';
import { SESSION_KEYS, USER_KEYS, type ResourceFacts } from './resource.ts';
import { isSemanticKernelScope, readSemanticKernel } from './semantic-kernel.ts';
import { readVercelAi, VERCEL_OPERATION_KEY, VERCEL_SCOPE } from './vercel-ai.ts';

export type { SpanFacts } from './facts.ts';

function hasAny(attributes: OtlpSpan['attributes'], keys: readonly string[]): boolean {
  for (const key of keys) if (attributes[key] !== undefined) return true;
  return false;
}

/**
 * Which instrumentation produced the span. An explicit `platform` attribute (span,
 * then resource) wins; then convention-specific keys; then the instrumentation scope
 * name; then any GenAI semconv key. Vercel first: its spans may have been enriched
 * with OpenInference keys by a span processor, but the SDK produced them.
 */
export function detectPlatform(
  span: OtlpSpan,
  scopeName: string,
  resourcePlatform: string | undefined,
  families = keyFamilies(span.attributes),
): string {
  const a = span.attributes;
  const explicit = (families & PLATFORM_KEYS ? textOf(a, 'platform') : undefined) ?? resourcePlatform;
  if (explicit !== undefined) return explicit;
  if (typeof a[VERCEL_OPERATION_KEY] === 'string') return 'vercel-ai';
  if (families & MASTRA_KEYS && a[MASTRA_SPAN_TYPE_KEY] !== undefined) return 'mastra';
  if (a[OPENINFERENCE_KIND_KEY] !== undefined) return 'openinference';
  if (families & (TRACELOOP_KEYS | LLM_KEYS) && hasAny(a, OPENLLMETRY_MARKER_KEYS)) return 'openllmetry';
  if ((families & PYDANTIC_AI_KEYS && hasAny(a, PYDANTIC_AI_MARKER_KEYS)) || scopeName === PYDANTIC_AI_SCOPE) return 'pydantic-ai';
  if (scopeName === GOOGLE_ADK_SCOPE) return 'google-adk';
  if (families & LIVEKIT_KEYS && hasAny(a, LIVEKIT_MARKER_KEYS)) return 'livekit';
  if (families & GENKIT_KEYS && a[GENKIT_TYPE_KEY] !== undefined) return 'genkit';
  if (families & MLFLOW_KEYS && a[MLFLOW_SPAN_TYPE_KEY] !== undefined) return 'mlflow';
  if (isSemanticKernelScope(scopeName)) return 'semantic-kernel';
  if ((families & LANGFUSE_KEYS && hasAny(a, LANGFUSE_MARKER_KEYS)) || scopeName === LANGFUSE_SCOPE) return 'langfuse';
  if (scopeName === VERCEL_SCOPE) return 'vercel-ai';
  if (scopeName.startsWith('openinference')) return 'openinference';
  if (scopeName.includes('traceloop')) return 'openllmetry';
  if (families & GENAI_KEYS && hasAny(a, GENAI_MARKER_KEYS)) return 'otel-genai';
  return '';
}

function fallbackSpanType(f: SpanFacts): SpanType {
  if (f.model !== undefined && hasTokenCounts(f)) return 'llm';
  if (f.toolName !== undefined) return 'tool';
  return 'span';
}

export interface ExtractedFacts extends SpanFacts {
  spanType: SpanType;
  platform: string;
}

/** `families`: the span's key families (key-families.ts), when the caller has them already. */
export function extractFacts(span: OtlpSpan, scopeName: string, resource: ResourceFacts, families = keyFamilies(span.attributes)): ExtractedFacts {
  const f = emptyFacts();
  // A reader that would find none of its keys is skipped (key-families.ts), as are Mastra,
  // Genkit and MLflow on spans without the family of the key that marks their spans (each
  // reads nothing without it); those that can be triggered by the scope name alone still run for it.
  if (families & AI_KEYS || scopeName === VERCEL_SCOPE) readVercelAi(span, f, scopeName);
  if (families & MASTRA_KEYS) readMastra(span, f);
  if (families & (LLM_KEYS | OPENINFERENCE_KEYS)) readOpenInference(span, f, families);
  if (families & (TRACELOOP_KEYS | LLM_KEYS)) readOpenLlmetry(span, f);
  if (families & PYDANTIC_AI_KEYS) readPydanticAi(span, f);
  if (families & GOOGLE_ADK_KEYS || scopeName === GOOGLE_ADK_SCOPE) readGoogleAdk(span, f, scopeName);
  if (families & LIVEKIT_KEYS) readLiveKit(span, f);
  if (families & GENKIT_KEYS) readGenkit(span, f);
  if (families & MLFLOW_KEYS) readMlflow(span, f);
  readSemanticKernel(span, f, scopeName);
  if (families & LANGFUSE_KEYS || scopeName === LANGFUSE_SCOPE) readLangfuse(span, f, scopeName);
  // Besides gen_ai.* and llm.* keys, GenAI semconv reads message events.
  if (families & (GENAI_KEYS | LLM_KEYS) || span.events.length > 0) readGenAi(span, f, families);
  if (families & OPENINFERENCE_KEYS) readPlainTexts(span, f);
  f.sessionId ??= firstText(span.attributes, SESSION_KEYS) ?? resource.sessionId;
  f.userId ??= firstText(span.attributes, USER_KEYS) ?? resource.userId;
  f.spanType ??= fallbackSpanType(f);
  f.platform = detectPlatform(span, scopeName, resource.platform, families);
  return f as ExtractedFacts;
}
