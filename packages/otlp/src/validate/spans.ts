/**
 * Per-span validation of a decoded export: spans that cannot be stored are
 * dropped individually and reported through OTLP partial success, instead of
 * failing the whole request for one bad span.
 */
import type { OtlpResourceSpans, OtlpScopeSpans, OtlpSpan, OtlpTraceExport } from '../types.ts';

export interface PartitionResult {
  /** The request with rejected spans removed, and resource/scope groups left empty dropped. */
  accepted: OtlpTraceExport;
  acceptedSpans: number;
  rejectedSpans: number;
  /** A summary of the rejections by reason for ExportTracePartialSuccess; "" when none. */
  errorMessage: string;
}

export interface PartitionOptions {
  /** The receive time. Not used yet: reserved for rejecting spans too far in the future or past. */
  nowUnixNano: bigint;
}

/** Rejection reasons, in the order they are checked and reported. */
const REASONS = [
  'with an invalid traceId',
  'with an invalid spanId',
  'with an invalid parentSpanId',
  'with an empty name',
  'without a start time',
  'with end before start',
] as const;

const INVALID_TRACE_ID = 0;
const INVALID_SPAN_ID = 1;
const INVALID_PARENT_SPAN_ID = 2;
const EMPTY_NAME = 3;
const NO_START_TIME = 4;
const END_BEFORE_START = 5;
const VALID = -1;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** Which check a span fails first, or VALID. */
function checkSpan(span: OtlpSpan): number {
  if (!TRACE_ID.test(span.traceId) || span.traceId === ZERO_TRACE_ID) return INVALID_TRACE_ID;
  if (!SPAN_ID.test(span.spanId) || span.spanId === ZERO_SPAN_ID) return INVALID_SPAN_ID;
  if (span.parentSpanId !== '' && !SPAN_ID.test(span.parentSpanId)) return INVALID_PARENT_SPAN_ID;
  if (span.name === '') return EMPTY_NAME;
  if (isZero(span.startTimeUnixNano)) return NO_START_TIME;
  if (compareDecimal(span.endTimeUnixNano, span.startTimeUnixNano) < 0) return END_BEFORE_START;
  return VALID;
}

function isZero(decimal: string): boolean {
  for (let i = 0; i < decimal.length; i++) if (decimal.charCodeAt(i) !== 48) return false;
  return true;
}

/** Compares two unsigned decimal strings (tolerating leading zeros) without BigInt. */
function compareDecimal(a: string, b: string): number {
  a = stripZeros(a);
  b = stripZeros(b);
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function stripZeros(decimal: string): string {
  if (decimal.charCodeAt(0) !== 48) return decimal;
  let i = 0;
  while (i < decimal.length - 1 && decimal.charCodeAt(i) === 48) i++;
  return decimal.slice(i);
}

/** Splits an export into the spans that can be stored and a count/summary of those that cannot. */
export function partitionValidSpans(req: OtlpTraceExport, _opts: PartitionOptions): PartitionResult {
  const counts = new Array<number>(REASONS.length).fill(0);
  const firsts: (OtlpSpan | undefined)[] = new Array<OtlpSpan | undefined>(REASONS.length).fill(undefined);
  let acceptedSpans = 0;
  let rejectedSpans = 0;

  const resourceSpans: OtlpResourceSpans[] = [];
  for (const group of req.resourceSpans) {
    const scopeSpans: OtlpScopeSpans[] = [];
    for (const scopeGroup of group.scopeSpans) {
      const spans: OtlpSpan[] = [];
      for (const span of scopeGroup.spans) {
        const reason = checkSpan(span);
        if (reason === VALID) {
          // An all-zero parent id is how some SDKs say "no parent".
          spans.push(span.parentSpanId === ZERO_SPAN_ID ? { ...span, parentSpanId: '' } : span);
          continue;
        }
        rejectedSpans++;
        counts[reason]!++;
        firsts[reason] ??= span;
      }
      acceptedSpans += spans.length;
      if (spans.length > 0) scopeSpans.push({ scope: scopeGroup.scope, spans });
    }
    if (scopeSpans.length > 0) resourceSpans.push({ resource: group.resource, scopeSpans });
  }

  return {
    accepted: { resourceSpans },
    acceptedSpans,
    rejectedSpans,
    errorMessage:
      rejectedSpans === 0 ? '' : summarize(acceptedSpans + rejectedSpans, rejectedSpans, counts, firsts),
  };
}

/** E.g. `rejected 3 of 1000 spans: 2 with an invalid spanId (first: trace 4bf9…/span "zz"), 1 with …`. */
function summarize(
  total: number,
  rejected: number,
  counts: readonly number[],
  firsts: readonly (OtlpSpan | undefined)[],
): string {
  const parts: string[] = [];
  for (let reason = 0; reason < REASONS.length; reason++) {
    const first = firsts[reason];
    if (first === undefined) continue;
    parts.push(`${counts[reason]} ${REASONS[reason]} (first: ${describe(first, reason)})`);
  }
  return `rejected ${rejected} of ${total} spans: ${parts.join(', ')}`;
}

/** Names a span briefly: valid ids abbreviated, the offending id quoted in full (within reason). */
function describe(span: OtlpSpan, reason: number): string {
  const trace = reason === INVALID_TRACE_ID ? quote(span.traceId) : abbreviate(span.traceId);
  const spanId = reason === INVALID_SPAN_ID ? quote(span.spanId) : abbreviate(span.spanId);
  let text = `trace ${trace}/span ${spanId}`;
  if (reason === INVALID_PARENT_SPAN_ID) text += ` parent ${quote(span.parentSpanId)}`;
  if (reason === NO_START_TIME || reason === END_BEFORE_START) {
    text += ` ${quote(span.name)} start ${span.startTimeUnixNano} end ${span.endTimeUnixNano}`;
  }
  return text;
}

const MAX_QUOTED = 40;

function quote(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED ? text.slice(0, MAX_QUOTED) + '…' : text);
}

function abbreviate(id: string): string {
  return id.length > 4 ? id.slice(0, 4) + '…' : quote(id);
}
