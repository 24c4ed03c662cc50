-- Trace hour figures: the summary figures of each rolled-up hour's traces, one row per
-- project, hour and computation, written by the rollup pass beside the hour's trace rollups
-- (packages/storage/src/traces/hour-figures.ts). A summary without trace conditions reads a
-- row per whole rolled-up hour instead of a row per trace. Counts and sums are plain sums;
-- distinct sessions and users, duration quantiles and masked rules are kept as mergeable
-- states, so merged hours give what one aggregate over their traces gives. Flags are not
-- kept: they are judged after the rollup and read from trace_flags.
CREATE TABLE IF NOT EXISTS trace_hour_figures
(
    project_id               String,
    hour                     DateTime('UTC'),
    -- the computation of the hour's trace rollups these figures were taken from
    version                  UInt64,
    hour_traces              SimpleAggregateFunction(sum, UInt64),
    hour_spans               SimpleAggregateFunction(sum, UInt64),
    hour_error_traces        SimpleAggregateFunction(sum, UInt64),
    hour_sessions            AggregateFunction(uniqExact, String),
    hour_users               AggregateFunction(uniqExact, String),
    hour_durations           AggregateFunction(quantiles(0.5, 0.9, 0.95, 0.99), Float64),
    hour_cost                SimpleAggregateFunction(sum, Float64),
    hour_input_tokens        SimpleAggregateFunction(sum, UInt64),
    hour_output_tokens       SimpleAggregateFunction(sum, UInt64),
    hour_total_tokens        SimpleAggregateFunction(sum, UInt64),
    hour_cached_input_tokens SimpleAggregateFunction(sum, UInt64),
    hour_reasoning_tokens    SimpleAggregateFunction(sum, UInt64),
    hour_flagged_spans       SimpleAggregateFunction(sum, UInt64),
    hour_masked_spans        SimpleAggregateFunction(sum, UInt64),
    hour_masked_rules        AggregateFunction(sumMap, Map(String, UInt64))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, hour, version);

-- The hours rolled up before this migration: their figures from their trace rollups, every
-- computation still stored (readers take the one an hour's record names). Only computations
-- without figures, so a second run adds nothing (a merge would add the figures up).
INSERT INTO trace_hour_figures
SELECT project_id, hour, version,
    count(), sum(span_count), countIf(trace_status = 'error'),
    uniqExactStateIf(trace_session_id, trace_session_id != ''), uniqExactStateIf(trace_user_id, trace_user_id != ''),
    quantilesState(0.5, 0.9, 0.95, 0.99)(trace_duration_ms), sum(trace_cost),
    sum(trace_input_tokens), sum(trace_output_tokens), sum(trace_total_tokens), sum(trace_cached_input_tokens), sum(trace_reasoning_tokens),
    sum(flagged_span_count), sum(masked_span_count), sumMapState(trace_masked_rules)
FROM trace_rollups
WHERE (project_id, hour, version) NOT IN (SELECT project_id, hour, version FROM trace_hour_figures)
GROUP BY project_id, hour, version;
