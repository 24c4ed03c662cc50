/**
 * Decodes an OTLP/HTTP protobuf metrics body (ExportMetricsServiceRequest) into
 * OtlpMetricsExport, reading the wire format with protobufjs' Reader like the trace and logs
 * decoders, with the resource, scope and attribute readers of common.ts (field numbers:
 * ../../proto/opentelemetry/proto/metrics). Exponential histograms and summaries have their
 * points counted, not read: ingest refuses them by number.
 */
import type protobuf from 'protobufjs';
import type { OtlpMetric, OtlpMetricPoint, OtlpMetricsExport, OtlpResourceMetrics, OtlpScopeMetrics, OtlpTemporality } from '../../types.ts';
import { OtlpDecodeError } from '../../errors.ts';
import { FIELDS, WIRE_I64, WIRE_LEN, WIRE_VARINT, otherField, tag, type FieldTable } from './fields.ts';
import { type Reader, cachedString, createReader, enter, int64Value, leave, uint64String } from './reader.ts';
import { decodeKeyValueInto, decodeResourceInto, decodeScopeInto } from './common.ts';

/** Decodes a complete ExportMetricsServiceRequest (or MetricsData, which has the same shape). */
export function decodeProtobufMetricsExport(body: Uint8Array): OtlpMetricsExport {
  try {
    const r = createReader(body);
    const resourceMetrics: OtlpResourceMetrics[] = [];
    readMessages(r, 1, FIELDS.ExportMetricsServiceRequest, () => resourceMetrics.push(decodeResourceMetrics(r)));
    return { resourceMetrics };
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // protobufjs' own errors for bad bytes; see decodeProtobufExport.
    throw new OtlpDecodeError(`invalid protobuf: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }
}

/**
 * Reads the message the reader is narrowed to: each embedded message of field `field`
 * through `read` (narrowed to it), other fields through `other`, else skipped or refused.
 */
function readMessages(r: Reader, field: number, table: FieldTable, read: () => void, other?: (t: number) => boolean): void {
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(field, WIRE_LEN)) {
      const outer = enter(r);
      read();
      leave(r, outer);
    } else if (!other?.(t)) {
      skipField(r, t, table);
    }
  }
}

function decodeResourceMetrics(r: Reader): OtlpResourceMetrics {
  const group: OtlpResourceMetrics = { resource: { attributes: {} }, scopeMetrics: [] };
  readMessages(r, 2, FIELDS.ResourceMetrics, () => group.scopeMetrics.push(decodeScopeMetrics(r)), (t) => {
    if (t !== tag(1, WIRE_LEN)) return false;
    const outer = enter(r);
    decodeResourceInto(r, group.resource.attributes);
    leave(r, outer);
    return true;
  });
  return group;
}

function decodeScopeMetrics(r: Reader): OtlpScopeMetrics {
  const group: OtlpScopeMetrics = { scope: { name: '', version: '' }, metrics: [] };
  readMessages(r, 2, FIELDS.ScopeMetrics, () => group.metrics.push(decodeMetric(r)), (t) => {
    if (t !== tag(1, WIRE_LEN)) return false;
    const outer = enter(r);
    decodeScopeInto(r, group.scope);
    leave(r, outer);
    return true;
  });
  return group;
}

/** Metric.data's members by field number. */
const DATA_KINDS = { 5: 'gauge', 7: 'sum', 9: 'histogram', 10: 'exponential_histogram', 11: 'summary' } as const;

function decodeMetric(r: Reader): OtlpMetric {
  const metric: OtlpMetric = { name: '', unit: '', kind: 'none', temporality: 0, points: [], unreadPoints: 0 };
  while (r.pos < r.len) {
    const t = r.tag();
    const field = t >>> 3;
    if (t === tag(1, WIRE_LEN)) {
      metric.name = cachedString(r);
    } else if (t === tag(3, WIRE_LEN)) {
      metric.unit = cachedString(r);
    } else if ((t & 7) === WIRE_LEN && field in DATA_KINDS) {
      // A oneof: when a sender sets several members, the last one wins.
      const kind = DATA_KINDS[field as keyof typeof DATA_KINDS];
      Object.assign(metric, { kind, temporality: 0, points: [], unreadPoints: 0 });
      const outer = enter(r);
      decodeData(r, metric);
      leave(r, outer);
    } else {
      skipField(r, t, FIELDS.Metric);
    }
  }
  return metric;
}

/** Reads a Gauge, Sum, Histogram, ExponentialHistogram or Summary into `metric`, as its kind says. */
function decodeData(r: Reader, metric: OtlpMetric): void {
  const table = DATA_TABLES[metric.kind as keyof typeof DATA_TABLES];
  readMessages(
    r,
    1,
    table,
    () => {
      if (metric.kind === 'histogram') metric.points.push(decodeHistogramPoint(r));
      else if (metric.kind === 'gauge' || metric.kind === 'sum') metric.points.push(decodeNumberPoint(r));
      else {
        metric.unreadPoints++;
        r.pos = r.len;
      }
    },
    (t) => {
      if (t !== tag(2, WIRE_VARINT) || metric.kind === 'gauge' || metric.kind === 'summary') return false;
      const temporality = r.uint32();
      metric.temporality = temporality === 1 || temporality === 2 ? (temporality as OtlpTemporality) : 0;
      return true;
    },
  );
}

const DATA_TABLES = {
  gauge: FIELDS.Gauge,
  sum: FIELDS.Sum,
  histogram: FIELDS.Histogram,
  exponential_histogram: FIELDS.ExponentialHistogram,
  summary: FIELDS.Summary,
} as const;

function emptyPoint(): OtlpMetricPoint {
  return { startTimeUnixNano: '0', timeUnixNano: '0', attributes: {}, value: null, count: 0, sum: null, min: null, max: null, explicitBounds: [], bucketCounts: [] };
}

/** The fields both point types share (their attributes' number differs); false for any other. */
function readTimeOrAttribute(r: Reader, t: number, point: OtlpMetricPoint, attributesField: number): boolean {
  if (t === tag(2, WIRE_I64)) point.startTimeUnixNano = uint64String(r.fixed64());
  else if (t === tag(3, WIRE_I64)) point.timeUnixNano = uint64String(r.fixed64());
  else if (t === tag(attributesField, WIRE_LEN)) decodeKeyValueInto(r, point.attributes, 0);
  else return false;
  return true;
}

function decodeNumberPoint(r: Reader): OtlpMetricPoint {
  const point = emptyPoint();
  while (r.pos < r.len) {
    const t = r.tag();
    if (readTimeOrAttribute(r, t, point, 7)) continue;
    switch (t) {
      case tag(4, WIRE_I64):
        point.value = r.double();
        break;
      case tag(6, WIRE_I64):
        point.value = Number(int64Value(r.sfixed64()));
        break;
      default:
        skipField(r, t, FIELDS.NumberDataPoint);
    }
  }
  return point;
}

function decodeHistogramPoint(r: Reader): OtlpMetricPoint {
  const point = emptyPoint();
  while (r.pos < r.len) {
    const t = r.tag();
    if (readTimeOrAttribute(r, t, point, 9)) continue;
    switch (t) {
      case tag(4, WIRE_I64):
        point.count = countOf(r.fixed64());
        break;
      case tag(5, WIRE_I64):
        point.sum = r.double();
        break;
      case tag(6, WIRE_I64):
        point.bucketCounts.push(countOf(r.fixed64()));
        break;
      case tag(6, WIRE_LEN):
        readPacked(r, () => point.bucketCounts.push(countOf(r.fixed64())));
        break;
      case tag(7, WIRE_I64):
        point.explicitBounds.push(r.double());
        break;
      case tag(7, WIRE_LEN):
        readPacked(r, () => point.explicitBounds.push(r.double()));
        break;
      case tag(11, WIRE_I64):
        point.min = r.double();
        break;
      case tag(12, WIRE_I64):
        point.max = r.double();
        break;
      default:
        skipField(r, t, FIELDS.HistogramDataPoint);
    }
  }
  return point;
}

/** A packed run of 8-byte values: protobufjs bounds each read by the narrowed length. */
function readPacked(r: Reader, readOne: () => void): void {
  const outer = enter(r);
  while (r.pos < r.len) readOne();
  leave(r, outer);
}

/** A fixed64 count as a number: exact below 2^53, which no real count reaches. */
function countOf(v: protobuf.Long): number {
  return (v.high >>> 0) * 4294967296 + (v.low >>> 0);
}

/**
 * Skips a field this decoder does not keep (descriptions, flags, is_monotonic, schema
 * URLs, metadata, exemplars); a known field with the wrong wire type is still refused.
 */
function skipField(r: Reader, t: number, table: FieldTable): void {
  const known = table.fields[t >>> 3];
  if (known !== undefined && known[1] === (t & 7)) r.skipType(t & 7);
  else otherField(r, t, table);
}
