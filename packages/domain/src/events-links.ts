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

export function eventsJson(events: readonly OtlpEvent[], limiter: ValueLimiter): string {
  if (events.length === 0) return '[]';
  return JSON.stringify(
    events.map((event) => ({
      name: event.name,
      timeUnixNano: event.timeUnixNano,
      attributes: limitAttributes(event.attributes, limiter),
    })),
  );
}

export function linksJson(links: readonly OtlpLink[], limiter: ValueLimiter): string {
  if (links.length === 0) return '[]';
  return JSON.stringify(
    links.map((link) => ({
      traceId: link.traceId,
      spanId: link.spanId,
      traceState: link.traceState,
      attributes: limitAttributes(link.attributes, limiter),
    })),
  );
}
