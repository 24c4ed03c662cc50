/**
 * Decodes an OTLP/JSON metrics body (ExportMetricsServiceRequest) into OtlpMetricsExport,
 * with the trace decoder's readers (camelCase and proto field names both accepted, unknown
 * fields ignored, errors naming the path). Exponential histograms and summaries have their
 * points counted, not read.
 */
import type { OtlpMetric, OtlpMetricKind, OtlpMetricPoint, OtlpMetricsExport, OtlpResourceMetrics, OtlpScopeMetrics, OtlpTemporality } from '../../types.ts';
import type { JsonPath } from './path.ts';
import { type JsonObject, readArray, readDouble, readEnum, readObject, readString, readUint64 } from './fields.ts';
import { decodeJsonRequest, mapArray, readAttributes, readResource, readScope } from './traces.ts';

const TEMPORALITIES: ReadonlyMap<string, number> = new Map([
  ['AGGREGATION_TEMPORALITY_UNSPECIFIED', 0],
  ['AGGREGATION_TEMPORALITY_DELTA', 1],
  ['AGGREGATION_TEMPORALITY_CUMULATIVE', 2],
]);

/** Metric.data's members, camelCase and proto names, in the order the oneof is tried. */
const DATA_FIELDS: ReadonlyArray<[OtlpMetricKind, string, string]> = [
  ['gauge', 'gauge', 'gauge'],
  ['sum', 'sum', 'sum'],
  ['histogram', 'histogram', 'histogram'],
  ['exponential_histogram', 'exponentialHistogram', 'exponential_histogram'],
  ['summary', 'summary', 'summary'],
];

/** Parses and decodes a complete OTLP/JSON metrics export request. */
export function decodeJsonMetricsExport(text: string): OtlpMetricsExport {
  return decodeJsonRequest(text, (request, path) => ({
    resourceMetrics: mapArray(request.resourceMetrics ?? request.resource_metrics, path, 'resourceMetrics', readResourceMetrics),
  }));
}

function readResourceMetrics(o: JsonObject, path: JsonPath): OtlpResourceMetrics {
  return { resource: readResource(o, path), scopeMetrics: mapArray(o.scopeMetrics ?? o.scope_metrics, path, 'scopeMetrics', readScopeMetrics) };
}

function readScopeMetrics(o: JsonObject, path: JsonPath): OtlpScopeMetrics {
  return { scope: readScope(o, path), metrics: mapArray(o.metrics, path, 'metrics', readMetric) };
}

function readMetric(o: JsonObject, path: JsonPath): OtlpMetric {
  const metric: OtlpMetric = {
    name: readString(o.name, path, 'name'),
    unit: readString(o.unit, path, 'unit'),
    kind: 'none',
    temporality: 0,
    points: [],
    unreadPoints: 0,
  };
  for (const [kind, camel, proto] of DATA_FIELDS) {
    const data = readObject(o[camel] ?? o[proto], path, camel);
    if (data === undefined) continue;
    path.push(camel);
    metric.kind = kind;
    const points = data.dataPoints ?? data.data_points;
    if (kind === 'histogram') metric.points = mapArray(points, path, 'dataPoints', readHistogramPoint);
    else if (kind === 'gauge' || kind === 'sum') metric.points = mapArray(points, path, 'dataPoints', readNumberPoint);
    else metric.unreadPoints = readArray(points, path, 'dataPoints').length;
    if (kind !== 'gauge' && kind !== 'summary') {
      metric.temporality = readEnum(data.aggregationTemporality ?? data.aggregation_temporality, path, 'aggregationTemporality', TEMPORALITIES, 2) as OtlpTemporality;
    }
    path.pop();
    break;
  }
  return metric;
}

function readTimes(o: JsonObject, path: JsonPath): Pick<OtlpMetricPoint, 'startTimeUnixNano' | 'timeUnixNano' | 'attributes'> {
  return {
    startTimeUnixNano: readUint64(o.startTimeUnixNano ?? o.start_time_unix_nano, path, 'startTimeUnixNano'),
    timeUnixNano: readUint64(o.timeUnixNano ?? o.time_unix_nano, path, 'timeUnixNano'),
    attributes: readAttributes(o.attributes, path, 'attributes', 0),
  };
}

function readNumberPoint(o: JsonObject, path: JsonPath): OtlpMetricPoint {
  const asInt = o.asInt ?? o.as_int;
  const asDouble = o.asDouble ?? o.as_double;
  let value: number | null = null;
  if (asInt != null) value = readInt64(asInt, path, 'asInt');
  else if (asDouble != null) value = readDouble(asDouble, path, 'asDouble');
  return { ...readTimes(o, path), value, count: 0, sum: null, min: null, max: null, explicitBounds: [], bucketCounts: [] };
}

function readHistogramPoint(o: JsonObject, path: JsonPath): OtlpMetricPoint {
  const optionalDouble = (value: unknown, field: string) => (value == null ? null : readDouble(value, path, field));
  return {
    ...readTimes(o, path),
    value: null,
    count: Number(readUint64(o.count, path, 'count')),
    sum: optionalDouble(o.sum, 'sum'),
    min: optionalDouble(o.min, 'min'),
    max: optionalDouble(o.max, 'max'),
    explicitBounds: readArray(o.explicitBounds ?? o.explicit_bounds, path, 'explicitBounds').map((b) => readDouble(b, path, 'explicitBounds')),
    bucketCounts: readArray(o.bucketCounts ?? o.bucket_counts, path, 'bucketCounts').map((n) => Number(readUint64(n, path, 'bucketCounts'))),
  };
}

/** An int64 (a number, or a decimal string as proto3 JSON writes it) as a number. */
function readInt64(value: unknown, path: JsonPath, field: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return Number(value);
  return path.fail(field, 'expected a 64-bit integer');
}
