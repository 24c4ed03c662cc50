import { Hono } from 'hono';
import type { Queue } from 'bullmq';
import type { KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import { createServiceApp, type Operations } from '@aos/metrics';
import type { EvaluatorSettings, MonitorSettings, RetentionSettings } from '@aos/config';
import type { EvaluationPayload, MonitorPayload, SettingsChangePublisher, SpanBatchPayload } from '@aos/queue';
import type { Storage } from '@aos/storage';
import { apiKeyRoutes } from './routes/api-keys/index.ts';
import { deadLetterRoutes } from './routes/dead-letters/index.ts';
import { evaluatorRoutes } from './routes/trace-evaluators/index.ts';
import { findingRoutes } from './routes/trace-findings/index.ts';
import { monitorRoutes } from './routes/trace-monitors/index.ts';
import { scoreConfigRoutes } from './routes/score-configs/index.ts';
import { scoreRoutes } from './routes/trace-scores/index.ts';
import { traceDimensionRoutes } from './routes/trace-dimensions/index.ts';
import { traceMaskingRoutes } from './routes/trace-masking/index.ts';
import { traceRetentionRoutes } from './routes/trace-retention/index.ts';
import { traceRoutes } from './routes/traces/index.ts';
import { traceViewRoutes } from './routes/trace-views/index.ts';

export interface QueryAppDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  /** The ingest queue, for listing dead letters. */
  queue: Queue<SpanBatchPayload>;
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
  /** RETENTION_DAYS, shown beside a project's own retention. */
  retentionSettings: RetentionSettings;
  logger: Logger;
}

/** Routes of the query app, to be mounted under /api/v1. */
export function queryRoutes(deps: QueryAppDeps): Hono {
  const app = new Hono();
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
  return app;
}

/** The query app on its own, with health, readiness and metrics. */
export function createQueryApp(deps: QueryAppDeps, ops: Operations): Hono {
  const app = createServiceApp(ops, deps.logger);
  app.route('/api/v1', queryRoutes(deps));
  return app;
}
