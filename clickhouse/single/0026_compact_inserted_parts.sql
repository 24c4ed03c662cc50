-- Parts of spans under 128 MiB (uncompressed) are written compact: every column in one
-- file instead of a file (and its buffers) per column stream. The writer's inserts
-- (blocks of ~1,000 to 50,000 rows, ~14,000 on average under load) are all compact; merges
-- of many of them (past 128 MiB, ~50,000 rows) come out wide, as every part did before.
-- A wide insert of a 14,000-row block held ~280 MiB of the engine's memory (~100 column
-- streams with a write and a compression buffer each), a compact one ~55 MiB, and took about
-- a quarter less CPU (bench/engine-memory.ts; docs/benchmarks.md, "Compact inserted parts").
-- Existing parts keep their format until merged.
ALTER TABLE spans MODIFY SETTING min_bytes_for_wide_part = 134217728;
