-- API keys, stored as SHA-256 hashes of the secret. A versioned row per change:
-- the newest version of an id wins, `revoked` marks a key that no longer works.
CREATE TABLE IF NOT EXISTS api_keys
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
ENGINE = ReplacingMergeTree(version)
ORDER BY id;
