-- The hours each trace has spans in (hours of start_time), kept by the engine as spans are
-- inserted. Spans are ordered by project and start hour before trace id (migration 0012),
-- so a read of one trace by its id alone cannot use the key past the project: it probed
-- the bloom filters of every hour the project has. Read first from here (a point read on
-- this table's key), the trace's hours narrow that read to the granules of those hours.
--
-- The view writes a row per trace and hour of each inserted block, so a trace sent in
-- several batches, or a replayed batch, adds copies: they collapse in merges, and before
-- that a reader takes the hours as a set, so copies cost nothing but a row each.
CREATE TABLE IF NOT EXISTS trace_hours_local ON CLUSTER {cluster}
(
    project_id String,
    trace_id   String,
    hour       DateTime('UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/trace_hours_local', '{replica}')
ORDER BY (project_id, trace_id, hour)
-- A lookup reads one granule: 1,024 rows instead of the default 8,192 (the index, one
-- entry a granule, stays small: 10,000 entries for 10 million trace hours).
SETTINGS index_granularity = 1024;

-- Each shard records the traces of its own part of spans; sharded like spans, so a
-- trace's hours lie on the shard that holds its spans.
CREATE MATERIALIZED VIEW IF NOT EXISTS trace_hours_mv ON CLUSTER {cluster} TO trace_hours_local AS
SELECT project_id, trace_id, toStartOfHour(start_time) AS hour
FROM spans_local
GROUP BY project_id, trace_id, hour;

CREATE TABLE IF NOT EXISTS trace_hours ON CLUSTER {cluster} AS trace_hours_local
ENGINE = Distributed({cluster}, currentDatabase(), trace_hours_local, cityHash64(project_id, trace_id));

-- Spans written before this migration, after the view exists so none is missed (a span
-- inserted in between is counted twice, which collapses like a replay). Spans are stored
-- in (project, hour, trace) order, so the grouping streams in that order instead of holding
-- every trace of the table in memory at once.
INSERT INTO trace_hours
SELECT project_id, trace_id, toStartOfHour(start_time) AS hour
FROM spans
GROUP BY project_id, hour, trace_id
SETTINGS optimize_aggregation_in_order = 1, insert_distributed_sync = 1;
