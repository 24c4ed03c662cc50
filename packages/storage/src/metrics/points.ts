import { genAiMetricAttributes } from '@aos/domain';
import type { MetricPointRecord } from '@aos/otlp';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam, nanosToDateTimeValue } from '../sql/values.ts';

const POINT_COLUMNS = [
  'project_id',
  'metric',
  'time',
  'operation_name',
  'provider_name',
  'request_model',
  'response_model',
  'token_type',
  'server_address',
  'error_type',
  'series',
  'start_time',
  'kind',
  'temporality',
  'unit',
  'service_name',
  'attributes',
  'count',
  'sum',
  'min',
  'max',
  'bucket_bounds',
  'bucket_counts',
  'value',
  'received_at',
] as const;

/**
 * Stores one export's GenAI metric points as sent. A replayed export collapses into the
 * rows already there: a point's key is its project, metric, time, attributes and stream.
 */
export async function insertGenAiMetricPoints(storage: Storage, projectId: string, receivedAtMs: number, points: readonly MetricPointRecord[]): Promise<void> {
  if (points.length === 0) return;
  const receivedAt = msToDateTimeParam(receivedAtMs);
  let body = '';
  for (const p of points) {
    const a = genAiMetricAttributes(p.attributes);
    // A point without a start (gauges, some SDKs) is its own stream's start.
    const start = p.startTimeUnixNano === '0' ? p.timeUnixNano : p.startTimeUnixNano;
    body += `${JSON.stringify([
      projectId,
      p.metric,
      nanosToDateTimeValue(p.timeUnixNano),
      a.operationName,
      a.providerName,
      a.requestModel,
      a.responseModel,
      a.tokenType,
      a.serverAddress,
      a.errorType,
      p.series,
      nanosToDateTimeValue(start),
      p.kind,
      p.temporality,
      p.unit,
      p.serviceName,
      JSON.stringify(p.attributes),
      p.count,
      finiteOrNull(p.sum),
      finiteOrNull(p.min),
      finiteOrNull(p.max),
      p.explicitBounds,
      p.bucketCounts,
      finiteOrNull(p.value),
      receivedAt,
    ])}\n`;
  }
  await storage.insertRows('genai_metric_points', POINT_COLUMNS, 'JSONCompactEachRow', body, 'metrics.points.write');
}

// JSON has no NaN or Infinity; the column is Nullable, and an unknown figure is better stored as none.
function finiteOrNull(n: number | null): number | null {
  return n !== null && Number.isFinite(n) ? n : null;
}
