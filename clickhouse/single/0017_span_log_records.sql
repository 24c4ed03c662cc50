-- GenAI events sent as OTLP log records (gen_ai.user.message, gen_ai.choice, …), kept per
-- span: whichever of a span and its records arrives first, the writer folds the records
-- into the span's messages and texts once both are stored (a new version of the span row,
-- see packages/domain/src/span-log-join.ts). Kept after the fold, so a span sent again is
-- folded again. Keyed by a digest of the record: a replayed record collapses into one.
CREATE TABLE IF NOT EXISTS span_log_records
(
    project_id     String,
    trace_id       String,
    span_id        String,
    record_id      String,
    time_unix_nano UInt64,
    event_name     LowCardinality(String),
    -- the record's attributes and body as JSON (values keep their OTLP JSON types)
    attributes     String CODEC(ZSTD(3)),
    body           String CODEC(ZSTD(3)),
    received_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, trace_id, span_id, record_id);

-- Which of a span's message and text columns its log records filled: a later fold
-- recomputes those from all the records instead of keeping a partial answer.
ALTER TABLE spans ADD COLUMN IF NOT EXISTS log_record_fields Array(LowCardinality(String)) AFTER dimensions;
