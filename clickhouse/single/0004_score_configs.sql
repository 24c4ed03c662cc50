-- Score configs: per project, the expected shape of scores of one name. A versioned row
-- per change: the newest version of an id wins. Reads use FINAL.
CREATE TABLE IF NOT EXISTS score_configs
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
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, id);
