/** Names for the OTLP span kind and status code numbers. */
import type { OtlpSpanKind, OtlpStatusCode } from '@aos/otlp';
import type { SpanStatus } from './span-row.ts';

const KIND_NAMES = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS_NAMES: readonly SpanStatus[] = ['unset', 'ok', 'error'];

export function spanKindName(kind: OtlpSpanKind): string {
  return KIND_NAMES[kind] ?? 'unspecified';
}

export function spanStatusName(code: OtlpStatusCode): SpanStatus {
  return STATUS_NAMES[code] ?? 'unset';
}
