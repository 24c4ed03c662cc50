-- Cluster variant: a replicated local table on every node plus a Distributed table
-- named like the single-node one, so queries are the same on both.
CREATE TABLE IF NOT EXISTS spans_local ON CLUSTER {cluster}
(
    project_id             String,
    trace_id               String,
    span_id                String,
    parent_span_id         String,
    name                   String,
    kind                   LowCardinality(String),
    span_type              LowCardinality(String),
    start_time             DateTime64(9, 'UTC'),
    end_time               DateTime64(9, 'UTC'),
    duration_ms            Float64,
    status                 LowCardinality(String),
    status_message         String,
    service_name           LowCardinality(String),
    environment            LowCardinality(String),
    platform               LowCardinality(String),
    scope_name             LowCardinality(String),
    scope_version          LowCardinality(String),
    agent_name             LowCardinality(String),
    model                  LowCardinality(String),
    provider               LowCardinality(String),
    input                  String CODEC(ZSTD(3)),
    output                 String CODEC(ZSTD(3)),
    input_tokens           UInt64,
    output_tokens          UInt64,
    total_tokens           UInt64,
    cached_input_tokens    UInt64,
    reasoning_tokens       UInt64,
    cost                   Float64,
    cost_source            LowCardinality(String),
    session_id             String,
    user_id                String,
    tool_name              LowCardinality(String),
    tool_arguments         String CODEC(ZSTD(3)),
    tool_call_id           String,
    time_to_first_token_ms Nullable(Float64),
    attributes             Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    -- attribute key -> the column (input, output, tool_arguments) that holds its value
    attribute_refs         Map(LowCardinality(String), LowCardinality(String)),
    resource_attributes    Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    events                 String CODEC(ZSTD(3)),
    links                  String CODEC(ZSTD(3)),
    quality_flags          Array(LowCardinality(String)),
    ingested_at            UInt64,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/spans_local', '{replica}', ingested_at)
PARTITION BY toYYYYMM(start_time)
ORDER BY (project_id, toDate(start_time), trace_id, span_id);

-- Sharded by trace so every span of a trace lives on one shard: FINAL and trace
-- assembly then never need to cross shards.
CREATE TABLE IF NOT EXISTS spans ON CLUSTER {cluster} AS spans_local
ENGINE = Distributed({cluster}, currentDatabase(), spans_local, cityHash64(project_id, trace_id));
