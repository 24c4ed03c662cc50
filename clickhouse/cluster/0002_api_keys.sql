-- Keys are few: one replicated table, read on every node.
CREATE TABLE IF NOT EXISTS api_keys ON CLUSTER {cluster}
(
    id          String,
    project_id  String,
    name        String,
    key_hash    String,
    key_prefix  String,
    scopes      Array(LowCardinality(String)),
    created_at  DateTime64(3, 'UTC'),
    revoked_at  Nullable(DateTime64(3, 'UTC')),
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/api_keys', '{replica}', version)
ORDER BY id;
