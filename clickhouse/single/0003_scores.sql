-- Scores on traces, spans and sessions. A versioned row per change: the newest version of
-- an id wins and is_deleted hides a removed score (FINAL applies both).
CREATE TABLE IF NOT EXISTS scores
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
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (project_id, id);

-- Deployments a project's spans have named (resource attribute deployment.id): a score
-- sent before its trace arrives must name one of them.
CREATE TABLE IF NOT EXISTS deployments
(
    project_id    String,
    deployment_id UInt64,
    first_seen    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, deployment_id);
