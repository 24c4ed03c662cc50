-- Each trace's start and end within each hour it has spans in (hours of start_time), kept
-- by the engine as spans are inserted. The trace list in start order with no conditions
-- (the page every user opens) needs only the newest trace starts of a window: found here,
-- it groups a row per trace and hour instead of every span of the window and its margin.
-- A row per hour, not per inserted block: a reader takes the hours from the margin's on,
-- and a block's spans in those hours must count even when the block began before them.
--
-- min and max are idempotent, so a trace sent in several batches, a replayed batch or a
-- re-sent span lowers or raises them only as the spans do. span_rows is a hint: copies add
-- to it. The window remembers replayed blocks as spans does (0019), which keeps it honest.
CREATE TABLE IF NOT EXISTS trace_starts
(
    project_id  String,
    hour        DateTime('UTC'),
    trace_id    String,
    trace_start SimpleAggregateFunction(min, DateTime64(9, 'UTC')),
    trace_end   SimpleAggregateFunction(max, DateTime64(9, 'UTC')),
    span_rows   SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (project_id, hour, trace_id)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_starts_mv TO trace_starts AS
SELECT project_id, toStartOfHour(start_time) AS hour, trace_id,
       min(start_time) AS trace_start, max(end_time) AS trace_end, toUInt64(count()) AS span_rows
FROM spans
GROUP BY project_id, hour, trace_id;

-- Spans written before this migration, after the view exists so none is missed (a span
-- inserted in between is counted twice, which min and max absorb). Spans are stored in
-- (project, hour, trace) order, so the grouping streams in that order instead of holding
-- every trace of the table in memory at once.
INSERT INTO trace_starts
SELECT project_id, toStartOfHour(start_time) AS hour, trace_id,
       min(start_time) AS trace_start, max(end_time) AS trace_end, toUInt64(count()) AS span_rows
FROM spans
GROUP BY project_id, hour, trace_id
SETTINGS optimize_aggregation_in_order = 1;
