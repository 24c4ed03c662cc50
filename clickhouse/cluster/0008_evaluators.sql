-- Cluster variant of the evaluator tables: small, replicated, not sharded.
-- Evaluators (automatic judges): a versioned row per change. `version` is the evaluator's
-- own version (1, 2, … one per change), `row_version` orders the rows; FINAL keeps the newest.
-- The model API key is kept in its own column so reads for the API never select it.
CREATE TABLE IF NOT EXISTS evaluators ON CLUSTER {cluster}
(
    id            String,
    project_id    String,
    name          String,
    version       UInt32,
    -- JSON: kind, target, template, prompt, variables, output, check, filters, model settings
    definition    String,
    model_api_key String,
    auto_run      UInt8,
    created_at    DateTime64(3, 'UTC'),
    updated_at    DateTime64(3, 'UTC'),
    created_by    String,
    row_version   UInt64,
    is_deleted    UInt8
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/evaluators', '{replica}', row_version, is_deleted)
ORDER BY (project_id, id);

-- Backfills: what was asked (window, evaluator version, total), written by the API.
-- Cancellation is its own versioned row, so the writer's progress rows never overwrite it.
CREATE TABLE IF NOT EXISTS evaluator_backfills ON CLUSTER {cluster}
(
    id                String,
    project_id        String,
    evaluator_id      String,
    evaluator_version UInt32,
    window_start      DateTime64(3, 'UTC'),
    window_end        DateTime64(3, 'UTC'),
    total             UInt64,
    estimate          String,
    created_at        DateTime64(3, 'UTC'),
    created_by        String,
    cancelled_at      Nullable(DateTime64(3, 'UTC')),
    row_version       UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/evaluator_backfills', '{replica}', row_version)
ORDER BY (project_id, id);

-- Progress of a backfill, written only by the writer: the keyset cursor of the next chunk,
-- started/finished times and the outcome.
CREATE TABLE IF NOT EXISTS evaluator_backfill_progress ON CLUSTER {cluster}
(
    project_id  String,
    backfill_id String,
    cursor      String,
    outcome     LowCardinality(String),
    error       String,
    started_at  DateTime64(3, 'UTC'),
    finished_at Nullable(DateTime64(3, 'UTC')),
    row_version UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/evaluator_backfill_progress', '{replica}', row_version)
ORDER BY (project_id, backfill_id);

-- One row per judged item of a backfill: what makes a restart skip the items already judged.
CREATE TABLE IF NOT EXISTS evaluator_backfill_items ON CLUSTER {cluster}
(
    project_id     String,
    backfill_id    String,
    item_key       String,
    failed         UInt8,
    error          String,
    scores_written UInt32,
    judged_at      DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/evaluator_backfill_items', '{replica}', judged_at)
ORDER BY (project_id, backfill_id, item_key);

-- Scores written by an evaluator name it and the version that judged.
ALTER TABLE scores ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS evaluator_id String DEFAULT '';
ALTER TABLE scores ON CLUSTER {cluster} ADD COLUMN IF NOT EXISTS evaluator_version UInt32 DEFAULT 0;
