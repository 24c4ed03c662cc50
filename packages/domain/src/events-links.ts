/**
 * Span events and links as JSON text. Attribute values keep their JSON types here
 * (unlike the flattened attribute maps); only oversized values are cut, which turns
 * an oversized structured value into a (truncated) string.
 */
import type { AttributeValue, Attributes, OtlpEvent, OtlpLink } from '@aos/otlp';
import { truncateUtf8, type ValueLimiter } from './attributes.ts';

function oversized(value: AttributeValue, limiter: ValueLimiter): string | undefined {
  if (typeof value === 'string') return truncateUtf8(value, limiter.maxBytes);
  if (value === null || typeof value !== 'object') return undefined;
  return truncateUtf8(JSON.stringify(value), limiter.maxBytes);
}

/** The attributes unchanged when everything fits (no copy), else a copy with cut values. */
function limitAttributes(attributes: Attributes, limiter: ValueLimiter): Attributes {
  let copy: Attributes | undefined;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    const cut = oversized(value, limiter);
    if (cut === undefined) continue;
    copy ??= { ...attributes };
    copy[key] = cut;
    limiter.truncated = true;
  }
  return copy ?? attributes;
}

const asSent = (attributes: Attributes): Attributes => attributes;

/**
 * The JSON of records built with their attributes as sent, or cut (limitAttributes) when
 * that JSON is over the per-value limit: a value's JSON is part of the whole, so when the
 * whole fits no value can be over the limit, and the common case measures no value alone.
 */
function limitedJson(records: (attributesOf: (attributes: Attributes) => Attributes) => unknown[], limiter: ValueLimiter): string {
  const whole = JSON.stringify(records(asSent));
  if (truncateUtf8(whole, limiter.maxBytes) === undefined) return whole;
  return JSON.stringify(records((attributes) => limitAttributes(attributes, limiter)));
}

export function eventsJson(events: readonly OtlpEvent[], limiter: ValueLimiter): string {
  if (events.length === 0) return '[]';
  return limitedJson(
    (attributesOf) =>
      events.map((event) => ({
        name: event.name,
        timeUnixNano: event.timeUnixNano,
        attributes: attributesOf(event.attributes),
      })),
    limiter,
  );
}

export function linksJson(links: readonly OtlpLink[], limiter: ValueLimiter): string {
  if (links.length === 0) return '[]';
  return limitedJson(
    (attributesOf) =>
      links.map((link) => ({
        traceId: link.traceId,
        spanId: link.spanId,
        traceState: link.traceState,
        attributes: attributesOf(link.attributes),
      })),
    limiter,
  );
}
