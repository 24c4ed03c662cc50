import * as v from 'valibot';
import { ConfigError, enumSetting, intSetting, optionalIntSetting, optionalString, parseEnv, stringSetting, urlSetting } from './env.ts';
import { INGEST_SETTINGS, SPAN_ROW_SETTINGS, spanRowSettings } from './ingest-settings.ts';

type Env = Record<string, string | undefined>;

const MiB = 1024 * 1024;

/**
 * Every setting of the service, grouped by the part that uses it. The configuration
 * table in docs/configuration.md lists the same names (a test holds them together).
 */
export const SETTINGS = {
  http: {
    HOST: stringSetting('127.0.0.1'),
    PORT: intSetting(8080, 0, 65535),
    /** A request's headers and body must have arrived within this (Node's requestTimeout):
     *  a slower client is answered 408 and its connection closed. 0 turns it off. */
    HTTP_REQUEST_TIMEOUT_MS: intSetting(30_000, 0, 3_600_000),
    /** The headers alone must have arrived within this (Node's headersTimeout). */
    HTTP_HEADERS_TIMEOUT_MS: intSetting(10_000, 1000, 3_600_000),
  },
  storage: {
    /** Unset: the embedded engine (chDB) under DATA_DIR. */
    CLICKHOUSE_URL: urlSetting(['http:', 'https:']),
    /** Credentials come from these two only: a URL carrying them is refused (URLs end up in logs). */
    CLICKHOUSE_USER: stringSetting('default'),
    CLICKHOUSE_PASSWORD: stringSetting(''),
    /** PEM file of the CA that signed the server's certificate (an `https://` URL); unset: the system's CAs. */
    CLICKHOUSE_CA_CERT: optionalString(),
    /** Connecting (TCP and TLS handshake) may take this long before the attempt fails as unreachable. */
    CLICKHOUSE_CONNECT_TIMEOUT_MS: intSetting(5_000, 100, 600_000),
    /** A request with no byte from the server for this long fails (a read is then not retried). */
    CLICKHOUSE_REQUEST_TIMEOUT_MS: intSetting(120_000, 100, 3_600_000),
    /** Times a read (a SELECT) is sent again after a connection fault; writes are never resent by the client. */
    CLICKHOUSE_READ_RETRIES: intSetting(2, 0, 10),
    CLICKHOUSE_DATABASE: v.optional(
      v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')),
      'aos',
    ),
    /** Set on a multi-node deployment: migrations use the cluster variant ON CLUSTER this name. */
    CLICKHOUSE_CLUSTER: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier'))),
    DATA_DIR: stringSetting('./data'),
    /** Linux nice value of the embedded engine's own threads, so the threads that answer
     *  exporters and API requests run first when the cores are busy (0: no change). */
    ENGINE_THREADS_NICE: intSetting(10, 0, 19),
    /** What an acknowledged export survives (docs/operations.md, "What an ack means"): `standard`, a
     *  crash of the service's processes; `strict`, also a crash of the host (the private Redis fsyncs
     *  every write, the embedded engine fsyncs every part it writes), at a cost in ack latency. */
    DURABILITY: enumSetting(['standard', 'strict'] as const, 'standard'),
  },
  queue: {
    /** Unset in the all-in-one process: it starts a private redis-server under DATA_DIR. */
    REDIS_URL: urlSetting(['redis:', 'rediss:']),
    QUEUE_PREFIX: stringSetting('aos'),
  },
  auth: {
    API_KEY_CACHE_TTL_MS: intSetting(10_000, 0),
  },
  api: {
    /** Largest request body of the read and settings API, checked against Content-Length before
     *  reading and while a chunked body streams in. 4 MiB holds the largest legitimate request: a
     *  masking test of a 1,000,000-character text in any script (up to 3 bytes a character) with its
     *  policy; 100 scores with full comments take under 2 MB. Some routes hold less (their own limits). */
    API_MAX_BODY_BYTES: intSetting(4 * MiB, 1024),
  },
  ingest: INGEST_SETTINGS,
  spanRows: SPAN_ROW_SETTINGS,
  otlpGrpc: {
    /** OTLP/gRPC receiver (ingest and all-in-one), on HOST; 0 turns it off. */
    OTLP_GRPC_PORT: intSetting(4317, 0, 65535),
    /** PEM files for TLS on the gRPC port, both or neither; unset: plaintext (h2c), for a
     *  deployment whose proxy terminates TLS or a private network. */
    OTLP_GRPC_TLS_CERT_FILE: optionalString(),
    OTLP_GRPC_TLS_KEY_FILE: optionalString(),
  },
  masking: {
    /** Key of the masking policy's `hash` replacement (HMAC), combined with the project id;
     *  unset: the project id alone, so a guessed value can be checked against a hash. */
    MASKING_HASH_KEY: stringSetting(''),
  },
  writer: {
    /** Worker threads doing the per-batch CPU work; 0 runs it on the main thread. */
    WRITER_THREADS: intSetting(1, 0, 16),
    WRITER_CONCURRENCY: intSetting(32, 1, 1000),
    WRITER_BATCH_MAX_ROWS: intSetting(50_000, 1),
    WRITER_BATCH_MAX_WAIT_MS: intSetting(250, 0),
    WRITER_BATCH_MAX_INSERT_MS: intSetting(1000, 0), // 0: blocks by rows alone (see insert-pace.ts)
    WRITER_JOB_ATTEMPTS: intSetting(8, 1, 100),
    WRITER_LOCK_DURATION_MS: intSetting(30_000, 1000),
    /** A trace with no span ingested for this long is judged for trace flags (and again after late spans). */
    TRACE_QUIET_MS: intSetting(60_000, 0),
    TRACE_FLAGS_INTERVAL_MS: intSetting(15_000, 100),
    /** An hour's traces are rolled up once no span has been written to it or its neighbours for this long (and again after later writes). */
    TRACE_ROLLUP_QUIET_MS: intSetting(600_000, 0),
    TRACE_ROLLUP_INTERVAL_MS: intSetting(60_000, 100),
    /** Trace flag rules (packages/domain/src/trace-flags.ts). */
    TRACE_FLAG_DUPLICATE_TOOL_MIN: intSetting(2, 2),
    TRACE_FLAG_LOOP_MIN_REPEATS: intSetting(3, 2),
    TRACE_FLAG_LOOP_MAX_CYCLE: intSetting(5, 1, 50),
    TRACE_FLAG_COST_OUTLIER_K: intSetting(5, 1),
    TRACE_FLAG_COST_OUTLIER_MIN_TRACES: intSetting(20, 2),
  },
  monitors: {
    /** Shortest evaluation interval a monitor may have (tests lower it). */
    MONITOR_MIN_INTERVAL_SECONDS: intSetting(60, 1, 86_400),
    /** Deliveries of a monitor webhook before it is given up (kept in the queue's failed set). */
    WEBHOOK_ATTEMPTS: intSetting(8, 1, 50),
    /** First retry delay; each retry waits twice as long as the one before. */
    WEBHOOK_BACKOFF_MS: intSetting(2000, 10),
    WEBHOOK_TIMEOUT_MS: intSetting(10_000, 100, 120_000),
  },
  evaluators: {
    /** Default OpenAI-compatible endpoint of model judges (an evaluator may set its own). */
    EVALUATOR_MODEL_BASE_URL: urlSetting(['http:', 'https:']),
    EVALUATOR_MODEL: stringSetting('gpt-4o-mini'),
    /** Default key for that endpoint; never returned by the API. */
    EVALUATOR_MODEL_API_KEY: optionalString(),
    EVALUATOR_TIMEOUT_MS: intSetting(30_000, 100, 600_000),
    EVALUATOR_MAX_ATTEMPTS: intSetting(3, 1, 10),
    EVALUATOR_BACKOFF_MS: intSetting(500, 0, 60_000),
    EVALUATOR_MAX_BACKOFF_MS: intSetting(30_000, 0, 600_000),
    /** Evaluation jobs (auto-runs, backfill chunks) a writer works on at once. */
    EVALUATOR_WORKER_CONCURRENCY: intSetting(8, 1, 256),
    /** Items a backfill job judges before it records its cursor and hands over to the next job. */
    EVALUATOR_BACKFILL_CHUNK: intSetting(25, 1, 1000),
  },
  outbound: {
    /** Let monitor webhooks and evaluator model endpoints given through the API reach
     *  loopback and private addresses (tests, a model server beside the service). */
    ALLOW_PRIVATE_OUTBOUND_URLS: enumSetting(['true', 'false'] as const, 'false'),
  },
  reads: {
    /** Time budget (max_execution_time) of each statement of a heavy read: lists, summaries,
     *  time series, sessions, span search, evaluator stats. */
    QUERY_TIMEOUT_SECONDS: intSetting(15, 1, 3600),
    /** Time budget of each statement of the other API requests (one trace, a config list, writes' reads). */
    QUERY_LIGHT_TIMEOUT_SECONDS: intSetting(5, 1, 3600),
    /** Time budget of each statement of an export, which reads its window slice by slice. */
    EXPORT_STATEMENT_TIMEOUT_SECONDS: intSetting(120, 1, 86_400),
    /** Rows and uncompressed bytes one read statement may read, and memory it may hold; 0: no limit. */
    QUERY_MAX_ROWS_TO_READ: intSetting(1_000_000_000, 0),
    QUERY_MAX_BYTES_TO_READ: intSetting(100 * 1024 * MiB, 0),
    QUERY_MAX_MEMORY_BYTES: intSetting(4 * 1024 * MiB, 0),
    /** Heavy reads (those above, and exports) a query process runs at once, in all and per project. */
    QUERY_HEAVY_CONCURRENCY: intSetting(4, 1, 1000),
    QUERY_HEAVY_CONCURRENCY_PER_PROJECT: intSetting(2, 1, 1000),
    /** How long a heavy read waits for a slot before it is answered 429 (its project's slots taken) or 503. */
    QUERY_QUEUE_TIMEOUT_MS: intSetting(10_000, 0, 600_000),
  },
  rateLimits: {
    /** API requests per second of one key and of one project (all its keys), counted in Redis
     *  across query processes; 0 turns a limit off. */
    RATE_LIMIT_KEY_RPS: intSetting(50, 0),
    RATE_LIMIT_PROJECT_RPS: intSetting(200, 0),
    /** Heavy reads one key runs at once across query processes; 0: no limit. */
    RATE_LIMIT_KEY_HEAVY_CONCURRENCY: intSetting(4, 0),
  },
  retention: {
    /** Days a trace (its spans and everything derived from it) is kept after its start; unset: for ever. A project may override it. */
    RETENTION_DAYS: optionalIntSetting(1, 36_500),
    /** How often the writers delete what has expired. */
    RETENTION_INTERVAL_MS: intSetting(3_600_000, 1000, 7 * 86_400_000),
  },
  log: {
    LOG_LEVEL: enumSetting(['debug', 'info', 'warn', 'error'] as const, 'info'),
  },
  process: {
    /** On SIGTERM/SIGINT: how long in-flight requests and jobs may drain before the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: intSetting(30_000, 0, 600_000),
  },
} as const;

export function httpSettings(env: Env) {
  const s = parseEnv(SETTINGS.http, env);
  return { host: s.HOST, port: s.PORT, requestTimeoutMs: s.HTTP_REQUEST_TIMEOUT_MS, headersTimeoutMs: s.HTTP_HEADERS_TIMEOUT_MS };
}
export type HttpSettings = ReturnType<typeof httpSettings>;

export function storageSettings(env: Env) {
  const s = parseEnv(SETTINGS.storage, env);
  const url = s.CLICKHOUSE_URL === undefined ? undefined : new URL(s.CLICKHOUSE_URL);
  if (url && (url.username || url.password)) {
    throw new ConfigError('invalid configuration:\n  CLICKHOUSE_URL: must not carry credentials; set CLICKHOUSE_USER and CLICKHOUSE_PASSWORD');
  }
  if (s.CLICKHOUSE_CA_CERT !== undefined && url?.protocol !== 'https:') {
    throw new ConfigError('invalid configuration:\n  CLICKHOUSE_CA_CERT: only with an https:// CLICKHOUSE_URL');
  }
  return {
    url: s.CLICKHOUSE_URL,
    user: s.CLICKHOUSE_USER,
    password: s.CLICKHOUSE_PASSWORD,
    caCertFile: s.CLICKHOUSE_CA_CERT,
    connectTimeoutMs: s.CLICKHOUSE_CONNECT_TIMEOUT_MS,
    requestTimeoutMs: s.CLICKHOUSE_REQUEST_TIMEOUT_MS,
    readRetries: s.CLICKHOUSE_READ_RETRIES,
    database: s.CLICKHOUSE_DATABASE,
    cluster: s.CLICKHOUSE_CLUSTER,
    dataDir: s.DATA_DIR,
    engineThreadsNice: s.ENGINE_THREADS_NICE,
    durability: s.DURABILITY,
  };
}
export type StorageSettings = ReturnType<typeof storageSettings>;

export function queueSettings(env: Env) {
  const s = parseEnv(SETTINGS.queue, env);
  return { redisUrl: s.REDIS_URL, prefix: s.QUEUE_PREFIX };
}
export type QueueSettings = ReturnType<typeof queueSettings>;

export function authSettings(env: Env) {
  const s = parseEnv(SETTINGS.auth, env);
  return { keyCacheTtlMs: s.API_KEY_CACHE_TTL_MS };
}
export type AuthSettings = ReturnType<typeof authSettings>;

export function apiSettings(env: Env) {
  const s = parseEnv(SETTINGS.api, env);
  return { maxBodyBytes: s.API_MAX_BODY_BYTES };
}
export type ApiSettings = ReturnType<typeof apiSettings>;

export function otlpGrpcSettings(env: Env) {
  const s = parseEnv(SETTINGS.otlpGrpc, env);
  const certFile = s.OTLP_GRPC_TLS_CERT_FILE;
  const keyFile = s.OTLP_GRPC_TLS_KEY_FILE;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(
      'invalid configuration:\n  OTLP_GRPC_TLS_CERT_FILE, OTLP_GRPC_TLS_KEY_FILE: set both (TLS on the gRPC port) or neither (plaintext)',
    );
  }
  return { port: s.OTLP_GRPC_PORT, tls: certFile && keyFile ? { certFile, keyFile } : null };
}
export type OtlpGrpcSettings = ReturnType<typeof otlpGrpcSettings>;

/** Ingest applies masking policies and query tries them out (POST /trace-masking/test): both hash alike. */
export function maskingSettings(env: Env) {
  const s = parseEnv(SETTINGS.masking, env);
  return { hashKey: s.MASKING_HASH_KEY };
}
export type MaskingSettings = ReturnType<typeof maskingSettings>;

export function writerSettings(env: Env) {
  const s = parseEnv(SETTINGS.writer, env);
  return {
    threads: s.WRITER_THREADS,
    concurrency: s.WRITER_CONCURRENCY,
    batchMaxRows: s.WRITER_BATCH_MAX_ROWS,
    batchMaxWaitMs: s.WRITER_BATCH_MAX_WAIT_MS,
    batchMaxInsertMs: s.WRITER_BATCH_MAX_INSERT_MS,
    jobAttempts: s.WRITER_JOB_ATTEMPTS,
    lockDurationMs: s.WRITER_LOCK_DURATION_MS,
    ...spanRowSettings(env),
    traceQuietMs: s.TRACE_QUIET_MS,
    traceFlagsIntervalMs: s.TRACE_FLAGS_INTERVAL_MS,
    traceRollupQuietMs: s.TRACE_ROLLUP_QUIET_MS,
    traceRollupIntervalMs: s.TRACE_ROLLUP_INTERVAL_MS,
    traceFlagRules: {
      duplicateToolMin: s.TRACE_FLAG_DUPLICATE_TOOL_MIN,
      loopMinRepeats: s.TRACE_FLAG_LOOP_MIN_REPEATS,
      loopMaxCycle: s.TRACE_FLAG_LOOP_MAX_CYCLE,
      costOutlierK: s.TRACE_FLAG_COST_OUTLIER_K,
      costOutlierMinTraces: s.TRACE_FLAG_COST_OUTLIER_MIN_TRACES,
    },
  };
}
export type WriterSettings = ReturnType<typeof writerSettings>;

/** Monitors and evaluators both call URLs users give: one switch for both. */
function allowPrivateOutboundUrls(env: Env): boolean {
  return parseEnv(SETTINGS.outbound, env).ALLOW_PRIVATE_OUTBOUND_URLS === 'true';
}

export function monitorSettings(env: Env) {
  const s = parseEnv(SETTINGS.monitors, env);
  return {
    minIntervalSeconds: s.MONITOR_MIN_INTERVAL_SECONDS,
    webhookAttempts: s.WEBHOOK_ATTEMPTS,
    webhookBackoffMs: s.WEBHOOK_BACKOFF_MS,
    webhookTimeoutMs: s.WEBHOOK_TIMEOUT_MS,
    allowPrivateUrls: allowPrivateOutboundUrls(env),
  };
}
export type MonitorSettings = ReturnType<typeof monitorSettings>;
export function evaluatorSettings(env: Env) {
  const s = parseEnv(SETTINGS.evaluators, env);
  return {
    defaultBaseUrl: s.EVALUATOR_MODEL_BASE_URL ?? null,
    defaultModel: s.EVALUATOR_MODEL,
    defaultApiKey: s.EVALUATOR_MODEL_API_KEY ?? null,
    timeoutMs: s.EVALUATOR_TIMEOUT_MS,
    maxAttempts: s.EVALUATOR_MAX_ATTEMPTS,
    backoffMs: s.EVALUATOR_BACKOFF_MS,
    maxBackoffMs: s.EVALUATOR_MAX_BACKOFF_MS,
    workerConcurrency: s.EVALUATOR_WORKER_CONCURRENCY,
    backfillChunk: s.EVALUATOR_BACKFILL_CHUNK,
    allowPrivateUrls: allowPrivateOutboundUrls(env),
  };
}
export type EvaluatorSettings = ReturnType<typeof evaluatorSettings>;

/** The engine-enforced budget of each read statement (by how heavy the request is) and the heavy-read slots. */
export function readSettings(env: Env) {
  const s = parseEnv(SETTINGS.reads, env);
  const limits = { maxRowsToRead: s.QUERY_MAX_ROWS_TO_READ, maxBytesToRead: s.QUERY_MAX_BYTES_TO_READ, maxMemoryBytes: s.QUERY_MAX_MEMORY_BYTES };
  return {
    budgets: {
      heavy: { timeoutSeconds: s.QUERY_TIMEOUT_SECONDS, ...limits },
      light: { timeoutSeconds: s.QUERY_LIGHT_TIMEOUT_SECONDS, ...limits },
      export: { timeoutSeconds: s.EXPORT_STATEMENT_TIMEOUT_SECONDS, ...limits },
    },
    heavyConcurrency: s.QUERY_HEAVY_CONCURRENCY,
    heavyConcurrencyPerProject: s.QUERY_HEAVY_CONCURRENCY_PER_PROJECT,
    queueTimeoutMs: s.QUERY_QUEUE_TIMEOUT_MS,
  };
}
export type ReadSettings = ReturnType<typeof readSettings>;

export function rateLimitSettings(env: Env) {
  const s = parseEnv(SETTINGS.rateLimits, env);
  return {
    keyRequestsPerSecond: s.RATE_LIMIT_KEY_RPS,
    projectRequestsPerSecond: s.RATE_LIMIT_PROJECT_RPS,
    keyHeavyConcurrency: s.RATE_LIMIT_KEY_HEAVY_CONCURRENCY,
  };
}
export type RateLimitSettings = ReturnType<typeof rateLimitSettings>;
/** The writers expire data by it; query shows it beside a project's override. */
export function retentionSettings(env: Env) {
  const s = parseEnv(SETTINGS.retention, env);
  return { defaultDays: s.RETENTION_DAYS ?? null, intervalMs: s.RETENTION_INTERVAL_MS };
}
export type RetentionSettings = ReturnType<typeof retentionSettings>;

export function logSettings(env: Env) {
  return { level: parseEnv(SETTINGS.log, env).LOG_LEVEL };
}

export function processSettings(env: Env) {
  const s = parseEnv(SETTINGS.process, env);
  return { shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS };
}
export type ProcessSettings = ReturnType<typeof processSettings>;
