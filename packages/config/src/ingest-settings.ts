import { intSetting, optionalString, parseEnv } from './env.ts';

type Env = Record<string, string | undefined>;

const MiB = 1024 * 1024;

/** Ingest's settings (SETTINGS.ingest in settings.ts). */
export const INGEST_SETTINGS = {
  INGEST_MAX_BODY_BYTES: intSetting(64 * MiB, 1024),
  /** Queued batches; at ~1.4 MB per 1,000-span batch of rows, 500 bounds Redis near 700 MB. */
  INGEST_MAX_QUEUE_DEPTH: intSetting(500, 1),
  /** Queued spans past this many seconds of what the writers stored recently: 503 (apps/ingest writer-pace-pressure.ts); 0: never. */
  INGEST_MAX_QUEUE_SECONDS: intSetting(10, 0, 3600),
  INGEST_RETRY_AFTER_SECONDS: intSetting(5, 1, 3600),
  /** How long ingest trusts its copy of a project's masking policy and dimension keys;
   *  a change is also announced over Redis, so this bounds only a missed announcement. */
  PROJECT_SETTINGS_TTL_MS: intSetting(5_000, 0, 300_000),
  /** Request bodies held at once (counted after decompression); past it: 503 with Retry-After. */
  INGEST_MAX_INFLIGHT_BYTES: intSetting(256 * MiB, 1024),
  /** Worker threads that decode bodies of at least INGEST_DECODE_THREAD_MIN_BYTES; 0 decodes on the main thread. */
  INGEST_DECODE_THREADS: intSetting(2, 0, 16),
  INGEST_DECODE_THREAD_MIN_BYTES: intSetting(64 * 1024, 0),
  /** A body still decoding on its thread after this is answered 503 with Retry-After (the thread finishes it unused). */
  INGEST_DECODE_TIME_LIMIT_MS: intSetting(1000, 1, 600_000),
  /** Per-span limits; what is cut is reported in partialSuccess and the span's dropped counts. */
  INGEST_MAX_SPAN_ATTRIBUTES: intSetting(1024, 1),
  INGEST_MAX_SPAN_EVENTS: intSetting(1024, 0),
  INGEST_MAX_SPAN_LINKS: intSetting(128, 0),
  INGEST_MAX_VALUE_LENGTH: intSetting(MiB, 1024),
  /** At most 64: the decoders refuse deeper nesting outright. */
  INGEST_MAX_VALUE_DEPTH: intSetting(16, 1, 64),
} as const;

/** How spans become rows: ingest normalizes them; the writer too, for jobs queued by an older version. */
export const SPAN_ROW_SETTINGS = {
  MAX_ATTRIBUTE_BYTES: intSetting(256 * 1024, 1024),
  MODEL_PRICES_FILE: optionalString(),
} as const;

/** Read by both ingest and writer (each keeps them under its own settings). */
export function spanRowSettings(env: Env) {
  const s = parseEnv(SPAN_ROW_SETTINGS, env);
  return { maxAttributeBytes: s.MAX_ATTRIBUTE_BYTES, modelPricesFile: s.MODEL_PRICES_FILE };
}

export function ingestSettings(env: Env) {
  const s = parseEnv(INGEST_SETTINGS, env);
  return {
    ...spanRowSettings(env),
    maxBodyBytes: s.INGEST_MAX_BODY_BYTES,
    maxQueueDepth: s.INGEST_MAX_QUEUE_DEPTH,
    maxQueueSeconds: s.INGEST_MAX_QUEUE_SECONDS,
    retryAfterSeconds: s.INGEST_RETRY_AFTER_SECONDS,
    projectSettingsTtlMs: s.PROJECT_SETTINGS_TTL_MS,
    maxInflightBytes: s.INGEST_MAX_INFLIGHT_BYTES,
    decodeThreads: s.INGEST_DECODE_THREADS,
    decodeThreadMinBytes: s.INGEST_DECODE_THREAD_MIN_BYTES,
    decodeTimeLimitMs: s.INGEST_DECODE_TIME_LIMIT_MS,
    limits: {
      maxAttributes: s.INGEST_MAX_SPAN_ATTRIBUTES,
      maxEvents: s.INGEST_MAX_SPAN_EVENTS,
      maxLinks: s.INGEST_MAX_SPAN_LINKS,
      maxValueLength: s.INGEST_MAX_VALUE_LENGTH,
      maxValueDepth: s.INGEST_MAX_VALUE_DEPTH,
    },
  };
}
export type IngestSettings = ReturnType<typeof ingestSettings>;
