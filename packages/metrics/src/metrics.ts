import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every metric of the service starts with this, so one scrape config selects them all. */
export const METRIC_PREFIX = 'aos_';

/** What ingest counts items of: traces now; OTLP logs go through the same counters as `logs`. */
export type IngestSignal = 'traces' | 'logs';

/** How a queue job ended on a worker (see @aos/queue's startWorker). */
export type JobOutcome = 'completed' | 'retried' | 'dead_lettered' | 'stalled';

/**
 * The process's metrics, one registry per process (the all-in-one process shares one
 * between its parts). Labels are bounded: route patterns, queue names, refusal reasons,
 * table names; never a project id, trace id or URL.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly ingestAccepted: Counter<'signal'>;
  readonly ingestRefused: Counter<'signal' | 'reason'>;
  readonly ingestRejectedItems: Counter<'signal'>;
  readonly ingestMasked: Counter<'signal'>;
  readonly ingestBodyBytes: Histogram<'signal'>;
  readonly queueJobs: Counter<'queue' | 'outcome'>;
  readonly deadLetters: Counter<'queue' | 'cause'>;
  readonly insertedRows: Counter<'table'>;
  readonly insertedBytes: Counter<'table'>;
  readonly insertDuration: Histogram<'table'>;
  readonly writerLag: Histogram;
  readonly maintenanceDue: Gauge<'pass'>;
  readonly traceFlagsBehind: Gauge;
  /** The outcome counters of one queue's jobs (and the causes of its dead letters), for startWorker's `onOutcome`. */
  jobOutcomes(queue: string): (outcome: JobOutcome, cause?: string) => void;
}

/** Creates the registry and its metrics, with Node.js process metrics (CPU, memory, event loop lag). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const registers = [registry];
  const queueJobs = new Counter({
    name: `${METRIC_PREFIX}queue_jobs_total`,
    help: 'Queue jobs finished by this process, by queue and outcome (completed, retried, dead_lettered, stalled)',
    labelNames: ['queue', 'outcome'] as const,
    registers,
  });
  const deadLetters = new Counter({
    name: `${METRIC_PREFIX}queue_dead_letters_total`,
    help: 'Jobs this process ended as dead letters, by queue and cause (rows_refused, rows_missing, invalid_batch, stalled, storage_error)',
    labelNames: ['queue', 'cause'] as const,
    registers,
  });
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP requests by method, route pattern and status, and how long they took to answer',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    ingestAccepted: new Counter({
      name: `${METRIC_PREFIX}ingest_accepted_items_total`,
      help: 'Spans (signal=traces), log records (signal=logs) or metric data points (signal=metrics) accepted and queued',
      labelNames: ['signal'] as const,
      registers,
    }),
    ingestRefused: new Counter({
      name: `${METRIC_PREFIX}ingest_refused_exports_total`,
      help: 'Export requests refused whole, by reason (unauthenticated, permission_denied, unsupported_format, invalid, too_large, overloaded, unavailable, aborted)',
      labelNames: ['signal', 'reason'] as const,
      registers,
    }),
    ingestRejectedItems: new Counter({
      name: `${METRIC_PREFIX}ingest_rejected_items_total`,
      help: 'Items refused one by one within an accepted export (partial success: bad ids, times)',
      labelNames: ['signal'] as const,
      registers,
    }),
    ingestMasked: new Counter({
      name: `${METRIC_PREFIX}ingest_masked_items_total`,
      help: "Accepted items in which the project's masking policy replaced at least one value",
      labelNames: ['signal'] as const,
      registers,
    }),
    ingestBodyBytes: new Histogram({
      name: `${METRIC_PREFIX}ingest_body_bytes`,
      help: 'Size of accepted export messages after decompression',
      labelNames: ['signal'] as const,
      buckets: [1024, 16_384, 131_072, 1_048_576, 4_194_304, 16_777_216, 67_108_864],
      registers,
    }),
    queueJobs,
    deadLetters,
    insertedRows: new Counter({
      name: `${METRIC_PREFIX}storage_inserted_rows_total`,
      help: 'Rows the writer inserted into ClickHouse, by table',
      labelNames: ['table'] as const,
      registers,
    }),
    insertedBytes: new Counter({
      name: `${METRIC_PREFIX}storage_inserted_bytes_total`,
      help: 'Bytes of encoded rows the writer sent to ClickHouse, by table',
      labelNames: ['table'] as const,
      registers,
    }),
    insertDuration: new Histogram({
      name: `${METRIC_PREFIX}storage_insert_duration_seconds`,
      help: 'How long one insert into ClickHouse took, by table',
      labelNames: ['table'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    writerLag: new Histogram({
      name: `${METRIC_PREFIX}writer_lag_seconds`,
      help: 'From an export received by ingest to its spans stored, per batch',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers,
    }),
    maintenanceDue: new Gauge({
      name: `${METRIC_PREFIX}maintenance_due_items`,
      help: "Work found due by a maintenance pass's last run (pass=trace_flags: traces judged; trace_rollups: hours, at most one pass's batch)",
      labelNames: ['pass'] as const,
      registers,
    }),
    traceFlagsBehind: new Gauge({
      name: `${METRIC_PREFIX}trace_flags_behind_seconds`,
      help: 'How far the trace flags pass trailed the quiet point (TRACE_QUIET_MS ago) when its last run ended: 0 when every trace quiet by then was judged',
      registers,
    }),
    jobOutcomes: (queue) => (outcome, cause) => {
      queueJobs.inc({ queue, outcome });
      if (outcome === 'dead_lettered') deadLetters.inc({ queue, cause: cause ?? 'storage_error' });
    },
  };
}
