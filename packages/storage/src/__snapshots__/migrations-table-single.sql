CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime64(3, 'UTC')) ENGINE = ReplacingMergeTree ORDER BY name
