-- Cluster variant of trace_flags: one small row per trace, replicated, not sharded, so
-- the trace filter's subquery reads it locally on every node.
CREATE TABLE IF NOT EXISTS trace_flags ON CLUSTER {cluster}
(
    project_id        String,
    trace_id          String,
    flags             Array(LowCardinality(String)),
    -- JSON object: flag -> why it fired
    details           String,
    spans_ingested_at UInt64,
    computed_at       DateTime64(3, 'UTC'),
    version           UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/trace_flags', '{replica}', version)
ORDER BY (project_id, trace_id);
