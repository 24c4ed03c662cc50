import { Hono } from 'hono';
import type { Queue } from 'bullmq';
import type { KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { Redis } from 'ioredis';
import { createServiceApp, type Operations } from '@aos/metrics';
import type { ApiSettings, EvaluatorSettings, MonitorSettings, RateLimitSettings, ReadSettings, RetentionSettings } from '@aos/config';
import type { EvaluationPayload, MonitorPayload, SettingsChangePublisher, IngestJobPayload } from '@aos/queue';
import { budgetedStorage, type Storage } from '@aos/storage';
import { bodyLimitGuard } from './guards/body-limit.ts';
import { RateLimits } from './guards/rate-limits.ts';
import { readGuard } from './guards/read-guard.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { apiKeyRoutes } from './routes/api-keys/index.ts';
import { deadLetterRoutes } from './routes/dead-letters/index.ts';
import { evaluatorRoutes } from './routes/trace-evaluators/index.ts';
import { findingRoutes } from './routes/trace-findings/index.ts';
import { monitorRoutes } from './routes/trace-monitors/index.ts';
import { scoreConfigRoutes } from './routes/score-configs/index.ts';
import { scoreRoutes } from './routes/trace-scores/index.ts';
import { traceDimensionRoutes } from './routes/trace-dimensions/index.ts';
import { traceMaskingRoutes } from './routes/trace-masking/index.ts';
import { traceMetricRoutes } from './routes/trace-metrics/index.ts';
import { traceRetentionRoutes } from './routes/trace-retention/index.ts';
import { traceRoutes } from './routes/traces/index.ts';
import { traceViewRoutes } from './routes/trace-views/index.ts';

export interface QueryAppDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  /** The ingest queue, for listing dead letters. */
  queue: Queue<IngestJobPayload>;
  /** Tells every process that a project's ingest settings (masking, dimensions) changed. */
  announceSettingsChange: SettingsChangePublisher;
  /** MASKING_HASH_KEY, for trying policies out as ingest applies them. */
  maskingHashKey: string;
  /** Monitor evaluation schedules, kept in step with monitor changes. */
  monitorQueue: Queue<MonitorPayload>;
  monitorSettings: MonitorSettings;
  /** Where backfills are queued for the writers. */
  evaluationQueue: Queue<EvaluationPayload>;
  /** Model defaults of evaluator runs made by the API (POST /trace-evaluators/{id}/run). */
  evaluatorSettings: EvaluatorSettings;
  /** Budgets of read statements and heavy-read slots. */
  reads: ReadSettings;
  /** Per-key and per-project limits, counted in Redis under `queuePrefix`. */
  rateLimits: RateLimitSettings;
  redis: Redis;
  queuePrefix: string;
  /** RETENTION_DAYS, shown beside a project's own retention. */
  retentionSettings: RetentionSettings;
  /** API_MAX_BODY_BYTES: no request body larger is read. */
  api: ApiSettings;
  logger: Logger;
}

/**
 * A heavy read holds its key's slot (counted in Redis) at most this many times its
 * statement budget: a process that dies mid-read frees the slot then.
 */
const HEAVY_SLOT_BUDGETS = 4;

/** Routes of the query app, to be mounted under /api/v1. */
export function queryRoutes(appDeps: QueryAppDeps): Hono {
  const app = new Hono();
  const rateLimits = new RateLimits(appDeps.redis, appDeps.queuePrefix, appDeps.rateLimits, HEAVY_SLOT_BUDGETS * appDeps.reads.budgets.heavy.timeoutSeconds);
  // First: an oversized body is refused before its key is looked up or a byte of it read.
  app.use('*', bodyLimitGuard(appDeps.api.maxBodyBytes));
  app.use('*', readGuard({ auth: appDeps.auth, settings: appDeps.reads, rateLimits }));
  // Every statement a route sends carries its request's budget (see readGuard).
  const deps = { ...appDeps, storage: budgetedStorage(appDeps.storage) };
  app.route('/traces', traceRoutes(deps));
  app.route('/trace-scores', scoreRoutes(deps));
  app.route('/score-configs', scoreConfigRoutes(deps));
  app.route('/trace-monitors', monitorRoutes(deps));
  app.route('/trace-findings', findingRoutes(deps));
  app.route('/trace-evaluators', evaluatorRoutes(deps));
  app.route('/api-keys', apiKeyRoutes(deps));
  app.route('/dead-letters', deadLetterRoutes(deps));
  app.route('/trace-dimensions', traceDimensionRoutes(deps));
  app.route('/trace-views', traceViewRoutes(deps));
  app.route('/trace-masking', traceMaskingRoutes(deps));
  app.route('/trace-retention', traceRetentionRoutes(deps));
  app.route('/trace-metrics', traceMetricRoutes(deps));
  // GET /openapi.json and /reference: the document of every route above (and of ingest's).
  app.route('/', openApiRoutes());
  return app;
}

/** The query app on its own, with health, readiness and metrics. */
export function createQueryApp(deps: QueryAppDeps, ops: Operations): Hono {
  const app = createServiceApp(ops, deps.logger);
  app.route('/api/v1', queryRoutes(deps));
  return app;
}
