-- Export records are few: one replicated table, read on every node.
CREATE TABLE IF NOT EXISTS exports ON CLUSTER {cluster}
(
    id          String,
    project_id  String,
    key_id      String,
    kind        LowCardinality(String),
    format      LowCardinality(String),
    filter      String,
    status      LowCardinality(String),
    rows        UInt64,
    bytes       UInt64,
    error       String,
    started_at  DateTime64(3, 'UTC'),
    finished_at Nullable(DateTime64(3, 'UTC')),
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/exports', '{replica}', version)
ORDER BY (project_id, id);
