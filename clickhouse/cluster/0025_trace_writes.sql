-- One row per trace per inserted block of spans: when the block landed, by the engine's
-- clock as it wrote the block. The writer's flags pass reads it in landed order from where
-- its last pass ended, to find the traces that went quiet since (traces/due.ts), instead of
-- grouping every span of the last day by trace on every tick. It is a work log, not data:
-- two days are kept, whole days dropped at once. Each shard records the writes of its own
-- part of spans, sharded like spans, so a trace's writes are all on one shard.
--
-- A replayed block the spans table refuses is refused here too (its view block shares the
-- insert's deduplication token); one let through would only have its trace judged again.
CREATE TABLE IF NOT EXISTS trace_writes_local ON CLUSTER {cluster}
(
    landed_at  DateTime64(3, 'UTC'),
    project_id String,
    trace_id   String
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/trace_writes_local', '{replica}')
PARTITION BY toDate(landed_at)
ORDER BY (landed_at, project_id, trace_id)
TTL toDateTime(landed_at) + INTERVAL 2 DAY
SETTINGS ttl_only_drop_parts = 1, replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_writes_mv ON CLUSTER {cluster} TO trace_writes_local AS
SELECT now64(3) AS landed_at, project_id, trace_id
FROM spans_local
GROUP BY project_id, trace_id;

CREATE TABLE IF NOT EXISTS trace_writes ON CLUSTER {cluster} AS trace_writes_local
ENGINE = Distributed({cluster}, currentDatabase(), trace_writes_local, cityHash64(project_id, trace_id));

-- The newest write of a trace its flags were computed after (trace_writes.landed_at): a
-- write landed later makes the trace due again, whatever its spans' ingested_at says (a
-- batch held back by a fault lands after a later one). 0 for rows written before this.
ALTER TABLE trace_flags ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS spans_landed_at DateTime64(3, 'UTC') AFTER spans_ingested_at;

-- Traces whose spans came within the last day, the pass's first look-back, as if each had
-- landed when its newest span was received: those not judged yet are found by the first
-- pass after this. Judged ones are found too (their flags carry no landed time yet) and
-- judged once more. A second run adds rows the pass reads again, which is harmless.
INSERT INTO trace_writes
SELECT fromUnixTimestamp64Milli(toInt64(max(ingested_at)), 'UTC') AS landed_at, project_id, trace_id
FROM spans
WHERE ingested_at >= toUnixTimestamp64Milli(now64(3)) - 86400000
GROUP BY project_id, trace_id
SETTINGS insert_distributed_sync = 1;
