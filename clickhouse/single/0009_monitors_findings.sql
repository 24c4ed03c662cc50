-- Monitors: per project, a measure watched over a rolling window. A versioned row per
-- change (definition as JSON, validated by the API); deleted = 1 hides it. Reads use FINAL.
CREATE TABLE IF NOT EXISTS monitors
(
    id             String,
    project_id     String,
    definition     String,
    webhook_secret String,
    created_at     DateTime64(3, 'UTC'),
    updated_at     DateTime64(3, 'UTC'),
    created_by     String,
    deleted        UInt8,
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, id);

-- The current state of each group of a monitor ('' for an ungrouped monitor), rewritten
-- at each evaluation; the newest version wins. A group gone from the data and back to ok
-- (or no data) is retired: kept out of reads until it shows up again.
CREATE TABLE IF NOT EXISTS monitor_states
(
    project_id   String,
    monitor_id   String,
    group_key    String,
    state        LowCardinality(String),
    value        Nullable(Float64),
    since        DateTime64(3, 'UTC'),
    evaluated_at DateTime64(3, 'UTC'),
    retired      UInt8,
    version      UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, monitor_id, group_key);

-- Acknowledgements: one per alert of a group, named by the time that alert began, so a
-- new alert (a new since) needs a new one and the evaluations never overwrite them.
CREATE TABLE IF NOT EXISTS monitor_acks
(
    project_id  String,
    monitor_id  String,
    group_key   String,
    alert_since DateTime64(3, 'UTC'),
    at          DateTime64(3, 'UTC'),
    actor       String
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, monitor_id, group_key, alert_since);

-- What happened to a monitor: state changes (with the value, threshold and window that
-- caused them), mutes, unmutes, acknowledgements. Ids are derived from what they record,
-- so a replayed evaluation writes the same rows again and they collapse.
CREATE TABLE IF NOT EXISTS monitor_events
(
    project_id   String,
    monitor_id   String,
    at           DateTime64(3, 'UTC'),
    id           String,
    kind         LowCardinality(String),
    group_key    String,
    from_state   LowCardinality(String),
    to_state     LowCardinality(String),
    value        Nullable(Float64),
    threshold    Nullable(Float64),
    window_start Nullable(DateTime64(3, 'UTC')),
    window_end   Nullable(DateTime64(3, 'UTC')),
    muted        UInt8,
    actor        String,
    detail       String
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, monitor_id, at, id);

-- Findings: a problem worth investigating. One versioned row per change; dedupe_key
-- names "the same problem" so repeated detections update one open finding.
CREATE TABLE IF NOT EXISTS findings
(
    id                String,
    project_id        String,
    dedupe_key        String,
    title             String,
    description       String,
    severity          LowCardinality(String),
    status            LowCardinality(String),
    investigator_kind LowCardinality(String),
    investigator_id   String,
    asset_type        LowCardinality(String),
    asset_id          String,
    assignee          String,
    evidence          Array(String),
    first_seen        DateTime64(3, 'UTC'),
    last_seen         DateTime64(3, 'UTC'),
    occurrences       UInt64,
    -- JSON of the latest risk assessment, '' until one is made
    risk_assessment   String,
    created_at        DateTime64(3, 'UTC'),
    updated_at        DateTime64(3, 'UTC'),
    version           UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, id);

-- Who changed what on a finding (status, assignee), newest last.
CREATE TABLE IF NOT EXISTS finding_history
(
    project_id String,
    finding_id String,
    at         DateTime64(3, 'UTC'),
    id         String,
    actor      String,
    field      LowCardinality(String),
    from_value String,
    to_value   String
)
ENGINE = ReplacingMergeTree
ORDER BY (project_id, finding_id, at, id);
