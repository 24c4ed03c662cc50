-- The hour of each judged trace's start (its earliest span's), the hour trace_rollups files
-- the trace under: a summary counts the flags of the rolled-up hours its window covers whole
-- by this hour, instead of joining every trace id of those hours to the flagged traces
-- (packages/storage/src/traces/summary.ts). The writer's flags pass writes it with every
-- row from the spans it judges; 0 (1970) means unknown.
ALTER TABLE trace_flags ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS start_hour DateTime('UTC') AFTER trace_id;

-- Flagged rows written before: the hour from trace_starts (0022), whose earliest hour of a
-- trace is that of its earliest span (trace_flags is replicated to every node, unsharded:
-- each shard of trace_starts reads its own copy for the IN set). Only rows carrying flags, the only ones a summary
-- counts; a trace with no spans left keeps 0, and is in no window's traces either. Each
-- copy keeps its row's version: the engine keeps the later written of equal versions, so it
-- replaces its row, while a recomputation (a newer version, with its own hour) still
-- replaces it, even one written while this runs. A second run finds no row left at 0.
INSERT INTO trace_flags (project_id, trace_id, start_hour, flags, details, spans_ingested_at, computed_at, version)
SELECT f.project_id, f.trace_id, s.start_hour, f.flags, f.details, f.spans_ingested_at, f.computed_at, f.version
FROM (
    SELECT project_id, trace_id, flags, details, spans_ingested_at, computed_at, version
    FROM trace_flags FINAL
    WHERE start_hour = 0 AND notEmpty(flags)
) AS f
INNER JOIN (
    SELECT project_id, trace_id, min(hour) AS start_hour
    FROM trace_starts
    WHERE (project_id, trace_id) IN (SELECT project_id, trace_id FROM trace_flags FINAL WHERE start_hour = 0 AND notEmpty(flags))
    GROUP BY project_id, trace_id
) AS s ON f.project_id = s.project_id AND f.trace_id = s.trace_id;
