/**
 * Per-span limits applied to a decoded export before it is queued: how many attributes,
 * events and links a span keeps, how long a string value may be and how deeply arrays and
 * kvlists may nest. What is cut is counted, so the exporter can be told (OTLP partial
 * success) and the span says so (its dropped counts, which the writer flags as
 * `data_dropped`).
 */
import { setAttribute } from '../decode/attribute-value.ts';
import type { AttributeValue, Attributes, OtlpSpan, OtlpTraceExport } from '../types.ts';

export interface SpanLimits {
  /** Attributes kept per span, event, link and resource (the first ones, in export order). */
  maxAttributes: number;
  maxEvents: number;
  maxLinks: number;
  /** Longest string value, name or status message, in UTF-16 code units (JavaScript string length). */
  maxValueLength: number;
  /** Arrays/kvlists nested deeper than this are kept as their JSON text. */
  maxValueDepth: number;
}

/** What the limits cut from one export. */
export interface LimitCuts {
  /** Spans that lost anything. */
  spans: number;
  attributes: number;
  events: number;
  links: number;
  /** Strings shortened to maxValueLength. */
  values: number;
  /** Values nested past maxValueDepth, kept as text. */
  nested: number;
}

/**
 * Applies the limits in place (the export is the decoder's fresh copy) and counts the cuts,
 * with the attributes the decoder already skipped per span (`skipped`; a span copied since,
 * as validation does for an all-zero parent id, keeps them in its dropped count only).
 */
export function limitSpans(req: OtlpTraceExport, limits: SpanLimits, skipped: ReadonlyMap<OtlpSpan, number> = new Map()): LimitCuts {
  const cuts: LimitCuts = { spans: 0, attributes: 0, events: 0, links: 0, values: 0, nested: 0 };
  const limiter = new Limiter(limits, cuts);
  for (const group of req.resourceSpans) {
    group.resource.attributes = limiter.attributes(group.resource.attributes).kept;
    for (const scopeGroup of group.scopeSpans) {
      for (const span of scopeGroup.spans) {
        const before = cutCount(cuts);
        cuts.attributes += skipped.get(span) ?? 0;
        const own = limiter.attributes(span.attributes);
        span.attributes = own.kept;
        span.droppedAttributesCount += own.dropped;
        span.name = limiter.text(span.name);
        span.status.message = limiter.text(span.status.message);
        if (span.events.length > limits.maxEvents) {
          const dropped = span.events.length - limits.maxEvents;
          span.events = span.events.slice(0, limits.maxEvents);
          span.droppedEventsCount += dropped;
          cuts.events += dropped;
        }
        for (const event of span.events) {
          event.name = limiter.text(event.name);
          event.attributes = limiter.attributes(event.attributes).kept;
        }
        if (span.links.length > limits.maxLinks) {
          cuts.links += span.links.length - limits.maxLinks;
          span.links = span.links.slice(0, limits.maxLinks);
        }
        for (const link of span.links) link.attributes = limiter.attributes(link.attributes).kept;
        if (cutCount(cuts) > before) cuts.spans++;
      }
    }
  }
  return cuts;
}

function cutCount(cuts: LimitCuts): number {
  return cuts.attributes + cuts.events + cuts.links + cuts.values + cuts.nested;
}

/** E.g. `cut 2 spans to the limits: 99000 attributes past 1024 per span, 3 values longer than 1048576`; "" when nothing was cut. */
export function describeCuts(cuts: LimitCuts, limits: SpanLimits): string {
  const parts: string[] = [];
  if (cuts.attributes > 0) parts.push(`${cuts.attributes} attributes past ${limits.maxAttributes} per span, event, link or resource`);
  if (cuts.events > 0) parts.push(`${cuts.events} events past ${limits.maxEvents} per span`);
  if (cuts.links > 0) parts.push(`${cuts.links} links past ${limits.maxLinks} per span`);
  if (cuts.values > 0) parts.push(`${cuts.values} strings shortened to ${limits.maxValueLength} characters`);
  if (cuts.nested > 0) parts.push(`${cuts.nested} values nested deeper than ${limits.maxValueDepth} levels kept as JSON text`);
  return parts.length === 0 ? '' : `cut ${cuts.spans} spans to the ingest limits: ${parts.join(', ')}`;
}

class Limiter {
  constructor(
    private readonly limits: SpanLimits,
    private readonly cuts: LimitCuts,
  ) {}

  attributes(attributes: Attributes): { kept: Attributes; dropped: number } {
    const keys = Object.keys(attributes);
    const dropped = Math.max(0, keys.length - this.limits.maxAttributes);
    const kept: Attributes = dropped > 0 ? {} : attributes;
    const keptKeys = dropped > 0 ? keys.slice(0, this.limits.maxAttributes) : keys;
    for (const key of keptKeys) setAttribute(kept, key, this.value(attributes[key]!, 0));
    this.cuts.attributes += dropped;
    return { kept, dropped };
  }

  text(value: string): string {
    if (value.length <= this.limits.maxValueLength) return value;
    this.cuts.values++;
    return value.slice(0, this.limits.maxValueLength);
  }

  /** `depth` counts the arrays/kvlists around the value. */
  private value(value: AttributeValue, depth: number): AttributeValue {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= this.limits.maxValueDepth) {
      this.cuts.nested++;
      return this.text(JSON.stringify(value));
    }
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const nested: { [key: string]: AttributeValue } = {};
    for (const [key, item] of Object.entries(value)) setAttribute(nested, key, this.value(item, depth + 1));
    return nested;
  }
}
