-- Flags computed per trace once it goes quiet (apps/writer trace-flags-processor). A
-- recomputation after late spans writes a new version; FINAL keeps the newest.
-- spans_ingested_at is the newest ingested_at among the spans the flags were computed
-- from: a trace whose spans are newer than that is due again.
CREATE TABLE IF NOT EXISTS trace_flags
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
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, trace_id);
