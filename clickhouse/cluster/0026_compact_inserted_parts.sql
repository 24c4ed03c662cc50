-- Parts of spans under 128 MiB (uncompressed) are written compact: every column in one
-- file instead of a file (and its buffers) per column stream. Inserted blocks are all
-- compact; merges past 128 MiB come out wide, as every part did before. What it saves, on
-- the embedded engine: clickhouse/single/0026_compact_inserted_parts.sql.
ALTER TABLE spans_local ON CLUSTER {cluster} MODIFY SETTING min_bytes_for_wide_part = 134217728;
