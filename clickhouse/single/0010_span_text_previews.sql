-- The first 1,000 characters of each span's input and output, kept by the engine as rows
-- are written. Trace lists show previews of this length; reading a preview column costs
-- a few kB per trace where the whole text can be megabytes (ClickHouse reads a String
-- value whole, so cutting it at query time still reads it all).
ALTER TABLE spans ADD COLUMN IF NOT EXISTS input_preview String MATERIALIZED leftUTF8(input, 1000) CODEC(ZSTD(3));
ALTER TABLE spans ADD COLUMN IF NOT EXISTS output_preview String MATERIALIZED leftUTF8(output, 1000) CODEC(ZSTD(3));
-- Rows written before this migration: computed when read until this background mutation
-- has written theirs.
ALTER TABLE spans MATERIALIZE COLUMN input_preview;
ALTER TABLE spans MATERIALIZE COLUMN output_preview;
