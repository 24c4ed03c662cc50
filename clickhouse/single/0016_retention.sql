-- Retention: how long a project's traces are kept. RETENTION_DAYS is the service-wide
-- default (unset: keep everything); a row here overrides it for one project (`days` NULL:
-- keep everything for that project). The newest version of a project's row wins; a
-- deleted row puts the project back on the default.
--
-- Expiry is a writer's maintenance pass (apps/writer/src/retention-pass.ts), not a TTL
-- clause on the tables, for three reasons:
--   * a TTL expression is part of the schema, while both the default (a process setting)
--     and the overrides (this table, changed through the API) change at run time; a TTL
--     could reach a per-project value only through a dictionary over this table or a
--     column stamped on every row at insert, and a stamped column keeps the retention of
--     the day a row was written, not the one set since;
--   * TTL runs in background merges, at no time anyone can state, so "expired" would mean
--     "some time after it expired", and a test or an operator cannot make it happen now;
--   * the tables that expire with a trace (its flags and scores) hold no time of the trace:
--     they go because their trace went, which a TTL on each table cannot express.
-- The pass deletes with lightweight DELETEs (rows vanish from reads at once; merges free
-- the space), per project, in hour steps. No existing table changes.
CREATE TABLE IF NOT EXISTS project_retention
(
    project_id  String,
    -- days a trace is kept after its start; NULL: kept for ever
    days        Nullable(UInt32),
    updated_at  DateTime64(3, 'UTC'),
    updated_by  String,
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY project_id;
