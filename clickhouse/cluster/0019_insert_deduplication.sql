-- Replicated tables remember inserted blocks in Keeper (replicated_deduplication_window);
-- it is set here to the single-node window, so a block the writer sends again after a
-- crash with the same insert_deduplication_token stores nothing a second time on any
-- server version (older ones defaulted to 100 or 1,000 blocks): apps/writer/src/span-insert-blocks.ts.
ALTER TABLE spans_local ON CLUSTER {cluster} MODIFY SETTING replicated_deduplication_window = 10000;
ALTER TABLE span_hour_writes_local ON CLUSTER {cluster} MODIFY SETTING replicated_deduplication_window = 10000;
