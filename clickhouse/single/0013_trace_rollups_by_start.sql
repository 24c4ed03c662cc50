-- Trace rollups stored in start order within each hour and computation: sorted by
-- (project, hour, version, trace start, trace id) instead of (..., trace id). An export
-- reads them in that order (an hour's rows share one version, and the hour is that of the
-- trace's start), so the engine streams them as stored instead of sorting every row, its
-- whole input and output included: about a sixth of an export's time.
--
-- The table is copied into one with the new key, which then takes its name: one row per
-- trace, seconds for a million traces. Safe to run again from any point: the first
-- statement drops a copy left by an interrupted run.
DROP TABLE IF EXISTS trace_rollups_by_start;

-- The columns of trace_rollups, with the new key.
CREATE TABLE trace_rollups_by_start AS trace_rollups
ENGINE = MergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, hour, version, trace_start, trace_id);

INSERT INTO trace_rollups_by_start SELECT * FROM trace_rollups;

EXCHANGE TABLES trace_rollups AND trace_rollups_by_start;

-- Computations another process wrote to the old table while it was copied (a version is
-- one computation of one hour, written before the hour's record names it).
INSERT INTO trace_rollups SELECT * FROM trace_rollups_by_start
WHERE version NOT IN (SELECT DISTINCT version FROM trace_rollups);

DROP TABLE trace_rollups_by_start;
