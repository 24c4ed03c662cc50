-- Score configs are few: one replicated table, read on every node.
CREATE TABLE IF NOT EXISTS score_configs ON CLUSTER {cluster}
(
    id          String,
    project_id  String,
    name        String,
    data_type   LowCardinality(String),
    min_value   Nullable(Float64),
    max_value   Nullable(Float64),
    categories  Array(String),
    description String,
    archived    UInt8,
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    created_by  String,
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/score_configs', '{replica}', version)
ORDER BY (project_id, id);
