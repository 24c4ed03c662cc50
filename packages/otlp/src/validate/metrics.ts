/**
 * Which metric data points ingest keeps: points of the metrics the caller stores (by name),
 * of a kind whose points it reads (gauge, sum, histogram), well formed. The others are
 * counted for ExportMetricsPartialSuccess with the reasons, not dropped silently.
 */
import { createHash } from 'node:crypto';
import type { Attributes, OtlpMetricPoint, OtlpMetricsExport } from '../types.ts';

/** A kept point, flattened out of its resource, scope and metric: all the writer needs of it. */
export interface MetricPointRecord extends OtlpMetricPoint {
  metric: string;
  unit: string;
  kind: 'gauge' | 'sum' | 'histogram';
  temporality: 'delta' | 'cumulative' | 'unspecified';
  /**
   * The point's stream: a digest of its resource, scope, metric and attributes. Two points
   * of one stream at one time are one point sent twice; cumulative points are differenced
   * within a stream.
   */
  series: string;
  /** The resource's `service.name`, "" when unset. */
  serviceName: string;
}

export interface MetricPointPartition {
  accepted: MetricPointRecord[];
  rejected: number;
  /** The rejections by reason, for the exporter; "" when none. */
  errorMessage: string;
}

const TEMPORALITY_NAMES = ['unspecified', 'delta', 'cumulative'] as const;

/** Splits an export into the points to keep and a summary of the refused ones. */
export function partitionMetricPoints(req: OtlpMetricsExport, keepsMetric: (name: string) => boolean): MetricPointPartition {
  const accepted: MetricPointRecord[] = [];
  const refusals = { other: 0, firstOther: '', unread: 0, malformed: 0 };
  for (const { resource, scopeMetrics } of req.resourceMetrics) {
    const serviceName = typeof resource.attributes['service.name'] === 'string' ? resource.attributes['service.name'] : '';
    const resourceKey = canonicalJson(resource.attributes);
    for (const { scope, metrics } of scopeMetrics) {
      for (const metric of metrics) {
        const points = metric.points.length + metric.unreadPoints;
        if (!keepsMetric(metric.name)) {
          if (refusals.other === 0 && points > 0) refusals.firstOther = metric.name;
          refusals.other += points;
          continue;
        }
        refusals.unread += metric.unreadPoints;
        if (metric.kind !== 'gauge' && metric.kind !== 'sum' && metric.kind !== 'histogram') continue;
        for (const point of metric.points) {
          if (!wellFormed(point, metric.kind)) {
            refusals.malformed++;
            continue;
          }
          const series = createHash('sha256')
            .update([resourceKey, scope.name, scope.version, metric.name, metric.kind, canonicalJson(point.attributes)].join('\u0000'))
            .digest('hex')
            .slice(0, 32);
          accepted.push({ ...point, metric: metric.name, unit: metric.unit, kind: metric.kind, temporality: TEMPORALITY_NAMES[metric.temporality], series, serviceName });
        }
      }
    }
  }
  return { accepted, ...describeRefusals(refusals, accepted.length) };
}

/** A point with a time, and a histogram whose bucket counts fit its bounds (bounds + 1 of them, or none). */
function wellFormed(point: OtlpMetricPoint, kind: 'gauge' | 'sum' | 'histogram'): boolean {
  if (point.timeUnixNano === '0') return false;
  if (kind !== 'histogram') return point.value !== null && Number.isFinite(point.value);
  return point.bucketCounts.length === 0 || point.bucketCounts.length === point.explicitBounds.length + 1;
}

function describeRefusals(r: { other: number; firstOther: string; unread: number; malformed: number }, kept: number): Omit<MetricPointPartition, 'accepted'> {
  const rejected = r.other + r.unread + r.malformed;
  const reasons: string[] = [];
  if (r.other > 0) reasons.push(`${r.other} of metrics other than the GenAI semantic conventions' gen_ai.* metrics, which are the only ones stored (first: ${JSON.stringify(r.firstOther.slice(0, 80))})`);
  if (r.unread > 0) reasons.push(`${r.unread} of exponential histograms or summaries (GenAI metrics are stored as histograms, sums or gauges)`);
  if (r.malformed > 0) reasons.push(`${r.malformed} malformed (no time, no value, or bucket counts that do not match the bounds)`);
  return { rejected, errorMessage: rejected === 0 ? '' : `rejected ${rejected} of ${rejected + kept} data points: ${reasons.join('; ')}` };
}

/** JSON with object keys sorted, so equal attribute sets give equal text whatever their order. */
function canonicalJson(attributes: Attributes): string {
  return JSON.stringify(attributes, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
