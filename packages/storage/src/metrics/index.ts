// GenAI metric points sent over OTLP: stored as sent, read as increases per bucket.
export { insertGenAiMetricPoints } from './points.ts';
export {
  METRIC_ATTRIBUTES,
  METRIC_ATTRIBUTE_COLUMNS,
  PREVIOUS_POINT_LOOKBACK_MS,
  metricSeriesSql,
  queryMetricSeries,
  type MetricAttribute,
  type MetricBucket,
  type MetricSeries,
  type MetricSeriesRequest,
  type MetricSeriesResult,
} from './series.ts';
