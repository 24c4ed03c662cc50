-- Cluster variant of the scores and deployments tables: small, replicated, not sharded.
CREATE TABLE IF NOT EXISTS scores ON CLUSTER {cluster}
(
    id            String,
    project_id    String,
    trace_id      String,
    span_id       String,
    session_id    String,
    name          String,
    data_type     LowCardinality(String),
    value         Nullable(Float64),
    string_value  Nullable(String),
    comment       String,
    source        LowCardinality(String),
    external_id   String,
    deployment_id Nullable(UInt64),
    config_id     String,
    owner_key_id  String,
    created_at    DateTime64(3, 'UTC'),
    updated_at    DateTime64(3, 'UTC'),
    version       UInt64,
    is_deleted    UInt8,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/scores', '{replica}', version, is_deleted)
ORDER BY (project_id, id);

CREATE TABLE IF NOT EXISTS deployments ON CLUSTER {cluster}
(
    project_id    String,
    deployment_id UInt64,
    first_seen    DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/deployments', '{replica}')
ORDER BY (project_id, deployment_id);
