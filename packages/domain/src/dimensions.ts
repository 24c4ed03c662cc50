/**
 * Metadata dimensions: per-project keys whose values are pulled out of each span at write
 * time into the `dimensions` map, so filters (`dim=key:value`) and groupings read one small
 * column instead of every attribute.
 */
import type { AttributeValue, Attributes } from '@aos/otlp';
import { valueToText } from './attributes.ts';

/**
 * Attribute prefixes under which instrumentations put user metadata. A dimension key `k`
 * is found as the attribute `k` itself or as `<prefix>k`, on the span first, then on its resource.
 */
export const METADATA_PREFIXES = [
  'metadata.',
  'langfuse.trace.metadata.',
  'langfuse.metadata.',
  'langfuse.observation.metadata.',
  'ai.telemetry.metadata.',
  'traceloop.association.properties.',
  'tag.',
] as const;

/** OpenInference puts metadata in one attribute holding a JSON object. */
export const METADATA_JSON_ATTRIBUTE = 'metadata';

/** Dimension keys: what users type after `dim=`, so no colon (it separates the value). */
export const DIMENSION_KEY_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,127}$/;

/** Longest stored dimension value; longer ones are cut (values are for grouping, not reading). */
export const MAX_DIMENSION_VALUE_CHARS = 256;

/**
 * The values of `keys` for one span. Keys without a value are absent (not ""), so
 * "has no value" and "has the empty string" stay apart only as far as OTLP allows.
 */
export function dimensionValues(
  keys: readonly string[],
  spanAttributes: Attributes,
  resourceAttributes: Attributes,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (keys.length === 0) return out;
  let metadataJson: Record<string, unknown> | null | undefined;
  for (const key of keys) {
    let value = lookup(key, spanAttributes);
    if (value === undefined) {
      // Parsed once per span, and only when some key was not found directly.
      metadataJson ??= parseMetadataJson(spanAttributes[METADATA_JSON_ATTRIBUTE]);
      const fromJson = metadataJson?.[key];
      if (fromJson !== undefined && fromJson !== null) value = fromJson as AttributeValue;
    }
    value ??= lookup(key, resourceAttributes);
    if (value === undefined || value === null) continue;
    out[key] = valueToText(value).slice(0, MAX_DIMENSION_VALUE_CHARS);
  }
  return out;
}

function lookup(key: string, attributes: Attributes): AttributeValue | undefined {
  if (Object.hasOwn(attributes, key)) return attributes[key];
  for (const prefix of METADATA_PREFIXES) {
    const name = prefix + key;
    if (Object.hasOwn(attributes, name)) return attributes[name];
  }
  return undefined;
}

function parseMetadataJson(value: AttributeValue | undefined): Record<string, unknown> | null {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  if (typeof value !== 'string' || !value.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
