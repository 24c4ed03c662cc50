/**
 * The writer's entry point: one decoded OTLP export → one SpanRow per span.
 */
import type { OtlpScopeSpans, OtlpSpan, OtlpTraceExport } from '@aos/otlp';
import type { SpanRow } from './span-row.ts';
import { firstText, flattenAttributes, ValueLimiter } from './attributes.ts';
import { extractFacts, type ExtractedFacts } from './conventions/extract.ts';
import { DEPLOYMENT_ENVIRONMENT_KEYS, keyFamilies, LANGFUSE_KEYS } from './conventions/key-families.ts';
import { ENVIRONMENT_KEYS, readResource, type ResourceFacts } from './conventions/resource.ts';
import { computeCost } from './cost.ts';
import { dimensionValues } from './dimensions.ts';
import { inferProvider } from './model-provider.ts';
import { Promotion, type PromotedColumn } from './promoted-attributes.ts';
import { eventsJson, linksJson } from './events-links.ts';
import { spanKindName, spanStatusName } from './otel-enums.ts';
import type { PriceTable } from './prices.ts';
import { qualityFlags } from './quality-flags.ts';
import { readableInput, readableOutput } from './messages/readable.ts';
import { storedJson } from './messages/stored.ts';
import { durationMillis, nanosToDecimalSeconds, nanosToMillis } from './time.ts';
import { timeToFirstTokenMs } from './time-to-first-token.ts';
import { reconcileTokens } from './tokens.ts';

export interface NormalizeContext {
  projectId: string;
  /** When the batch was received (ms since the epoch); becomes `ingested_at`. */
  receivedAtMs: number;
  prices: PriceTable;
  /** Largest stored size of one attribute, input, output or tool-arguments value, in UTF-8 bytes. */
  maxValueBytes: number;
  /** The project's dimension keys when the batch was received (see dimensions.ts). */
  dimensionKeys?: readonly string[];
  /** Masking rules that changed a span, by the span's position in export order (see @aos/masking). */
  maskedRules?: Readonly<Record<number, readonly string[]>>;
}

/**
 * One row per span, in export order. Rows of one resource share the same
 * `resource_attributes` object; treat rows as read-only.
 */
export function spanRowsFromExport(batch: OtlpTraceExport, ctx: NormalizeContext): SpanRow[] {
  if (!(ctx.maxValueBytes > 0)) throw new RangeError(`maxValueBytes must be positive, got ${ctx.maxValueBytes}`);
  const rows: SpanRow[] = [];
  // One limiter for the export, reset per span: its flag is read once the span's row is built.
  const limiter = new ValueLimiter(ctx.maxValueBytes);
  for (const resourceSpans of batch.resourceSpans) {
    const resource = readResource(resourceSpans.resource.attributes, ctx.maxValueBytes);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        limiter.truncated = false;
        const row = spanRow(span, scopeSpans.scope, resource, ctx, limiter);
        const masked = ctx.maskedRules?.[rows.length];
        if (masked) row.masked_rules = [...masked];
        if (ctx.dimensionKeys?.length) {
          row.dimensions = dimensionValues(ctx.dimensionKeys, span.attributes, resourceSpans.resource.attributes);
        }
        rows.push(row);
      }
    }
  }
  return rows;
}

/** The row without the batch-level annotations (masked rules, dimensions), which the caller sets. */
function spanRow(span: OtlpSpan, scope: OtlpScopeSpans['scope'], resource: ResourceFacts, ctx: NormalizeContext, limiter: ValueLimiter): SpanRow {
  // Which conventions' keys the span has, found once: the readers skip lookups of keys it cannot have.
  const families = keyFamilies(span.attributes);
  const facts = extractFacts(span, scope.name, resource, families);
  const texts = spanTexts(facts, limiter);
  const promotion = new Promotion(texts);
  const attributes = flattenAttributes(span.attributes, limiter, promotion);
  const tokens = reconcileTokens(facts);
  const model = facts.model ?? '';
  const provider = facts.provider || (model ? inferProvider(model) : '');
  const cost = computeCost(facts.explicitCost, tokens, model, provider, ctx.prices);
  const durationMs = durationMillis(span.startTimeUnixNano, span.endTimeUnixNano);
  const events = eventsJson(span.events, limiter);
  const links = linksJson(span.links, limiter);

  // Every field written in one literal, no spread: a spread mid-literal makes V8 define
  // each later field one by one, the most expensive line of the function.
  return {
    project_id: ctx.projectId,
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    kind: spanKindName(span.kind),
    span_type: facts.spanType,
    start_time: nanosToDecimalSeconds(span.startTimeUnixNano),
    end_time: nanosToDecimalSeconds(span.endTimeUnixNano),
    duration_ms: durationMs,
    // A call the instrumentation reports as failed (finish reason `error`) is an error even
    // when the status says otherwise: Mastra marks its failed inference spans OK.
    status: facts.failed ? 'error' : spanStatusName(span.status.code),
    status_message: span.status.message,
    service_name: resource.serviceName,
    environment:
      resource.environment || (families & (DEPLOYMENT_ENVIRONMENT_KEYS | LANGFUSE_KEYS) ? (firstText(span.attributes, ENVIRONMENT_KEYS) ?? '') : ''),
    platform: facts.platform,
    scope_name: scope.name,
    scope_version: scope.version,
    agent_name: facts.agentName ?? '',
    model,
    provider,
    input: texts.input,
    output: texts.output,
    input_messages: texts.input_messages,
    output_messages: texts.output_messages,
    system_instructions: texts.system_instructions,
    input_tokens: tokens.input,
    output_tokens: tokens.output,
    total_tokens: tokens.total,
    cached_input_tokens: tokens.cachedInput,
    reasoning_tokens: tokens.reasoning,
    cost: cost.cost,
    cost_source: cost.source,
    session_id: facts.sessionId ?? '',
    user_id: facts.userId ?? '',
    tool_name: facts.toolName ?? '',
    tool_arguments: texts.tool_arguments,
    tool_call_id: facts.toolCallId ?? '',
    time_to_first_token_ms: timeToFirstTokenMs(span, durationMs, families),
    attributes,
    attribute_refs: promotion.refs,
    resource_attributes: resource.attributes,
    events,
    links,
    quality_flags: qualityFlags({
      startMs: nanosToMillis(span.startTimeUnixNano),
      receivedAtMs: ctx.receivedAtMs,
      truncated: limiter.truncated || resource.truncated,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      spanType: facts.spanType,
      hasTokenCounts: tokens.known,
      hasModel: model !== '',
      unknownPrice: cost.unknownPrice,
      inconsistentTokens: tokens.inconsistent,
    }),
    masked_rules: [],
    dimensions: {},
    log_record_fields: [],
    ingested_at: ctx.receivedAtMs,
  };
}

/** The readable texts, tool arguments and stored message lists, each within the size limit: the columns an attribute can be promoted to. */
type SpanTexts = Record<PromotedColumn, string>;

function spanTexts(facts: ExtractedFacts, limiter: ValueLimiter): SpanTexts {
  const inputMessages = storedJson(facts.inputMessages, limiter.maxBytes, facts.inputMessagesSource);
  const outputMessages = storedJson(facts.outputMessages, limiter.maxBytes, facts.outputMessagesSource);
  const system = storedJson(facts.systemInstructions, limiter.maxBytes, facts.systemInstructionsSource);
  if (inputMessages.truncated || outputMessages.truncated || system.truncated) limiter.truncated = true;
  const input = facts.input ?? (facts.inputMessages === undefined ? '' : readableInput(facts.inputMessages));
  const output = facts.output ?? (facts.outputMessages === undefined ? '' : readableOutput(facts.outputMessages));
  return {
    input: limiter.limit(input),
    output: limiter.limit(output),
    tool_arguments: facts.toolArguments === undefined ? '' : limiter.limit(facts.toolArguments),
    input_messages: inputMessages.text,
    output_messages: outputMessages.text,
    system_instructions: system.text,
  };
}
