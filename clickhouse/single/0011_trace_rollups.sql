-- Trace rollups: the figures of each trace of a past hour, computed once the hour has gone
-- quiet, so summaries over days of spans read one row per trace instead of aggregating
-- every span. They are used only while exact; see packages/storage/src/trace-rollups.ts.

-- Span rows written per project and hour of start_time, counted by the engine as they are
-- inserted (replays and duplicates included): the count only grows, so an hour whose
-- counts show the same total as when its rollups were computed has had no write since.
CREATE TABLE IF NOT EXISTS span_hour_writes
(
    project_id   String,
    hour         DateTime('UTC'),
    written      SimpleAggregateFunction(sum, UInt64),
    last_written SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (project_id, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS span_hour_writes_mv TO span_hour_writes AS
SELECT project_id, toStartOfHour(start_time) AS hour, count() AS written, max(now64(3)) AS last_written
FROM spans
GROUP BY project_id, hour;

-- One row per trace and computation: `version` names the computation, and readers take an
-- hour's rows of the version its trace_rollup_hours row names, so a recomputation becomes
-- visible at once and whole. Column names are those of the query-time trace aggregate.
-- Lists and summaries never read the text columns (columns are stored apart).
CREATE TABLE IF NOT EXISTS trace_rollups
(
    project_id                String,
    -- the hour the trace starts in
    hour                      DateTime('UTC'),
    version                   UInt64,
    trace_id                  String,
    trace_start               DateTime64(9, 'UTC'),
    trace_end                 DateTime64(9, 'UTC'),
    trace_duration_ms         Float64,
    trace_name                String,
    span_count                UInt64,
    error_count               UInt64,
    trace_status              LowCardinality(String),
    trace_input_tokens        UInt64,
    trace_output_tokens       UInt64,
    trace_total_tokens        UInt64,
    trace_cached_input_tokens UInt64,
    trace_reasoning_tokens    UInt64,
    trace_cost                Float64,
    trace_session_id          String,
    trace_user_id             String,
    trace_environment         LowCardinality(String),
    trace_service_name        LowCardinality(String),
    trace_platform            LowCardinality(String),
    trace_models              Array(LowCardinality(String)),
    flagged_span_count        UInt64,
    masked_span_count         UInt64,
    trace_masked_rules        Map(LowCardinality(String), UInt64),
    -- the root's input and output, whole (stored twice, so exports need not aggregate spans)
    trace_input               String CODEC(ZSTD(3)),
    trace_output              String CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, hour, version, trace_id);

-- The current computation of each rolled-up hour, and the span rows written to the hours
-- its traces can have spans in (the hour, the one before, the one after) when it ran.
CREATE TABLE IF NOT EXISTS trace_rollup_hours
(
    project_id     String,
    hour           DateTime('UTC'),
    version        UInt64,
    written_around UInt64,
    computed_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, hour);

-- Spans written before this migration: counted once now (a row counted twice only moves
-- a counter, which is all a counter is read for).
INSERT INTO span_hour_writes
SELECT project_id, toStartOfHour(start_time) AS hour, count() AS written, now64(3) AS last_written
FROM spans
GROUP BY project_id, hour;
