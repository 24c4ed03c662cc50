-- The engine remembers the last 10,000 inserted blocks of spans by their
-- insert_deduplication_token, so a block the writer sends again after a crash (its
-- part committed, the jobs not yet marked stored in Redis) stores nothing a second time:
-- apps/writer/src/span-insert-blocks.ts. A plain MergeTree remembers none by default.
-- span_hour_writes too: the materialized view feeds it a replayed block even when spans
-- stored none of it (measured on chDB 26.7), and with a window of its own the view's
-- block is recognised as well (deduplicate_blocks_in_dependent_materialized_views = 1).
ALTER TABLE spans MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE span_hour_writes MODIFY SETTING non_replicated_deduplication_window = 10000;
