-- GenAI metric data points sent over OTLP (gen_ai.client.token.usage,
-- gen_ai.client.operation.duration, gen_ai.server.time_to_first_token, …), as sent: a
-- histogram point keeps its count, sum, min, max, bounds and bucket counts, a sum or gauge
-- point its value. Cumulative points carry totals since their start; reads difference them
-- within their stream (`series`: a digest of resource, scope, metric and attributes).
-- Keyed by project, metric, time and the conventions' attributes, then the stream, so a
-- replayed export (or an exporter's retry) collapses into the rows already there.
CREATE TABLE IF NOT EXISTS genai_metric_points
(
    project_id      String,
    metric          LowCardinality(String),
    time            DateTime64(9, 'UTC'),
    operation_name  LowCardinality(String),
    provider_name   LowCardinality(String),
    request_model   LowCardinality(String),
    response_model  LowCardinality(String),
    token_type      LowCardinality(String),
    server_address  LowCardinality(String),
    error_type      LowCardinality(String),
    series          String,
    start_time      DateTime64(9, 'UTC'),
    kind            LowCardinality(String),
    temporality     LowCardinality(String),
    unit            LowCardinality(String),
    service_name    LowCardinality(String),
    -- every attribute of the point as JSON (values keep their OTLP JSON types)
    attributes      String CODEC(ZSTD(3)),
    count           UInt64,
    sum             Nullable(Float64),
    min             Nullable(Float64),
    max             Nullable(Float64),
    bucket_bounds   Array(Float64),
    bucket_counts   Array(UInt64),
    value           Nullable(Float64),
    received_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, metric, time, operation_name, provider_name, request_model, response_model, token_type, server_address, error_type, series, start_time);
