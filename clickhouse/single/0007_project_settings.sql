-- Project settings (issue 7): the masking policy, metadata dimension keys and saved views.
-- Each is a versioned row per change; reads use FINAL so the newest version wins.
CREATE TABLE IF NOT EXISTS masking_policies
(
    project_id  String,
    -- the policy as saved (JSON), re-validated when loaded
    policy      String,
    updated_at  DateTime64(3, 'UTC'),
    updated_by  String,
    version     UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY project_id;

CREATE TABLE IF NOT EXISTS dimension_keys
(
    project_id  String,
    key         String,
    added_at    DateTime64(3, 'UTC'),
    added_by    String
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, key);

CREATE TABLE IF NOT EXISTS trace_views
(
    id          String,
    project_id  String,
    name        String,
    description String,
    -- the trace filter as the query parameters of GET /traces (JSON object)
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
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, id);

-- Which masking rules changed a span (empty: none), and the values of the project's
-- dimension keys at ingest, so filters and groups read one small map instead of JSON.
ALTER TABLE spans ADD COLUMN IF NOT EXISTS masked_rules Array(LowCardinality(String)) AFTER quality_flags;
ALTER TABLE spans ADD COLUMN IF NOT EXISTS dimensions Map(LowCardinality(String), String) AFTER masked_rules;
ALTER TABLE spans ADD INDEX IF NOT EXISTS idx_dimension_values mapValues(dimensions) TYPE bloom_filter(0.01) GRANULARITY 1;
