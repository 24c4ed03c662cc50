-- Exports of traces and spans (CSV or JSON Lines): who asked, when, for what filter, and
-- how it ended. A versioned row per change: `running` when the export starts, then
-- `completed` or `failed` with the rows and bytes sent; the newest version of an id wins.
CREATE TABLE IF NOT EXISTS exports
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
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, id);
