-- Trace rollups computed again under the rules of this version: a trace whose root has no
-- text takes its input and output from its agent or LLM spans, and its models list one entry
-- per model. Rollups computed before keep the old texts and lists, so every rolled-up hour
-- is forgotten: each is read from its spans until the writer's rollup pass computes it again
-- (newest hours first, up to 200 hours or 20 s per pass). Both statements only drop parts;
-- nothing is copied.
TRUNCATE TABLE IF EXISTS trace_rollup_hours ON CLUSTER {cluster};

-- Their rows (each shard's), with no hour naming their versions any more.
TRUNCATE TABLE IF EXISTS trace_rollups_local ON CLUSTER {cluster};
