-- Cluster variant of 0018: the points sharded by project and stream, so every point of a
-- stream (which reads difference in order) lives on one shard.
CREATE TABLE IF NOT EXISTS genai_metric_points_local ON CLUSTER {cluster}
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/genai_metric_points_local', '{replica}')
ORDER BY (project_id, metric, time, operation_name, provider_name, request_model, response_model, token_type, server_address, error_type, series, start_time);

CREATE TABLE IF NOT EXISTS genai_metric_points ON CLUSTER {cluster} AS genai_metric_points_local
ENGINE = Distributed({cluster}, currentDatabase(), genai_metric_points_local, cityHash64(project_id, series));
