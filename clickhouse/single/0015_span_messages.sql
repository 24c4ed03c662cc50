-- The conversation of each span in one shape whatever the instrumentation: the messages it
-- sent, those that came back, and the system instructions given apart from them, each as
-- OpenTelemetry GenAI messages JSON (role + parts; see packages/domain/src/messages). The
-- `input` and `output` columns hold the text a person reads, taken from these messages.
-- Rows written before this migration have no messages ('' reads as none).
ALTER TABLE spans ADD COLUMN IF NOT EXISTS input_messages String CODEC(ZSTD(3)) AFTER output;
ALTER TABLE spans ADD COLUMN IF NOT EXISTS output_messages String CODEC(ZSTD(3)) AFTER input_messages;
ALTER TABLE spans ADD COLUMN IF NOT EXISTS system_instructions String CODEC(ZSTD(3)) AFTER output_messages;
