-- The hours' distinct sessions and users as arrays of the ids' 64-bit hashes
-- (packages/storage/src/traces/hour-figures.ts), read with uniqExactArray. A summary merges
-- them at about a third of the engine CPU of 0021's uniqExact(String) states, whose every
-- row a reader first rebuilds into a hash set of 128-bit hashes (at 100M spans, measured on
-- a copy: docs/benchmarks.md). Arrays of distinct hashes merge as their union
-- (groupUniqArrayArray), so rows of one computation, however many, give the same count.
-- 0021's hour_sessions and hour_users stay, no longer written nor read: a node still on the
-- previous version writes them during an upgrade, and dropping them would fail its writes
-- (the rows it writes meanwhile lack the hashes: an upgrade stops the old writers first).
ALTER TABLE trace_hour_figures ADD COLUMN IF NOT EXISTS hour_session_hashes SimpleAggregateFunction(groupUniqArrayArray, Array(UInt64)) AFTER hour_users;
ALTER TABLE trace_hour_figures ADD COLUMN IF NOT EXISTS hour_user_hashes SimpleAggregateFunction(groupUniqArrayArray, Array(UInt64)) AFTER hour_session_hashes;

-- The hashes of every computation stored before this migration, from its trace rollups, as
-- one more row of the computation with only them: its other columns are zero sums and empty
-- states, which change no figure when merged or read beside its row. Only computations that
-- have figures and no hashes yet, and only rows with some hash, so a second run adds nothing.
INSERT INTO trace_hour_figures (project_id, hour, version, hour_session_hashes, hour_user_hashes)
SELECT project_id, hour, version,
    groupUniqArrayIf(sipHash64(trace_session_id), trace_session_id != '') AS session_hashes,
    groupUniqArrayIf(sipHash64(trace_user_id), trace_user_id != '') AS user_hashes
FROM trace_rollups
WHERE (project_id, hour, version) IN (SELECT project_id, hour, version FROM trace_hour_figures)
    AND (project_id, hour, version) NOT IN (SELECT project_id, hour, version FROM trace_hour_figures WHERE notEmpty(hour_session_hashes) OR notEmpty(hour_user_hashes))
GROUP BY project_id, hour, version
HAVING notEmpty(session_hashes) OR notEmpty(user_hashes);
