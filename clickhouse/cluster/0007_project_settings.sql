-- Project settings (issue 7): few rows, so replicated tables read on every node.
CREATE TABLE IF NOT EXISTS masking_policies ON CLUSTER {cluster}
(
    project_id  String,
    policy      String,
    updated_at  DateTime64(3, 'UTC'),
    updated_by  String,
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/masking_policies', '{replica}', version)
ORDER BY project_id;

CREATE TABLE IF NOT EXISTS dimension_keys ON CLUSTER {cluster}
(
    project_id  String,
    key         String,
    added_at    DateTime64(3, 'UTC'),
    added_by    String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/dimension_keys', '{replica}')
ORDER BY (project_id, key);

CREATE TABLE IF NOT EXISTS trace_views ON CLUSTER {cluster}
(
    id          String,
    project_id  String,
    name        String,
    description String,
    filter      String,
    sort_field  LowCardinality(String),
    sort_order  LowCardinality(String),
    columns     Array(String),
    owner       String,
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    deleted     UInt8,
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/trace_views', '{replica}', version)
ORDER BY (project_id, id);

-- The local tables first, then the Distributed table that reads them.
ALTER TABLE spans_local ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS masked_rules Array(LowCardinality(String)) AFTER quality_flags;
ALTER TABLE spans_local ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS dimensions Map(LowCardinality(String), String) AFTER masked_rules;
ALTER TABLE spans_local ON CLUSTER {cluster} ADD INDEX IF NOT EXISTS idx_dimension_values mapValues(dimensions) TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE spans ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS masked_rules Array(LowCardinality(String)) AFTER quality_flags;
ALTER TABLE spans ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS dimensions Map(LowCardinality(String), String) AFTER masked_rules;
