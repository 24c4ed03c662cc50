-- Cluster variant of 0017: the records sharded like the spans they belong to (by project
-- and trace, so a span and its records live on one shard), and the fold's column on the
-- local span tables first, then on the Distributed table in front of them.
CREATE TABLE IF NOT EXISTS span_log_records_local ON CLUSTER {cluster}
(
    project_id     String,
    trace_id       String,
    span_id        String,
    record_id      String,
    time_unix_nano UInt64,
    event_name     LowCardinality(String),
    attributes     String CODEC(ZSTD(3)),
    body           String CODEC(ZSTD(3)),
    received_at    DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/span_log_records_local', '{replica}')
ORDER BY (project_id, trace_id, span_id, record_id);

CREATE TABLE IF NOT EXISTS span_log_records ON CLUSTER {cluster} AS span_log_records_local
ENGINE = Distributed({cluster}, currentDatabase(), span_log_records_local, cityHash64(project_id, trace_id));

ALTER TABLE spans_local ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS log_record_fields Array(LowCardinality(String)) AFTER dimensions;
ALTER TABLE spans ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS log_record_fields Array(LowCardinality(String)) AFTER dimensions;
