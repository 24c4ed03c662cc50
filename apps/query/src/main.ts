import {
  apiSettings,
  authSettings,
  ConfigError,
  evaluatorSettings,
  httpSettings,
  logSettings,
  maskingSettings,
  monitorSettings,
  processSettings,
  queueSettings,
  rateLimitSettings,
  readSettings,
  retentionSettings,
  storageSettings,
  writerSettings,
} from '@aos/config';
import { createKeyAuthenticator } from '@aos/http';
import { createLogger } from '@aos/log';
import { assertRedisKeepsKeys, createMetrics, createReadiness } from '@aos/metrics';
import { createEvaluationQueue, createIngestQueue, createMonitorQueue, createRedisConnection, settingsChangePublisher, withMigrationLock } from '@aos/queue';
import { runMain, serveUntilSignal, shutdownSteps } from '@aos/runtime';
import { migrate, openStorage } from '@aos/storage';
import { createQueryApp } from './app.ts';

// Query on its own: needs CLICKHOUSE_URL, and REDIS_URL for the dead-letter listing, monitor schedules and evaluator backfills.
runMain(async () => {
  const env = process.env;
  const log = createLogger(logSettings(env).level, { service: 'query' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when query runs on its own');
  if (!storageConfig.url) {
    throw new ConfigError('CLICKHOUSE_URL: required when query runs on its own (the embedded engine lives in the all-in-one process)');
  }
  const storage = await openStorage(storageConfig);
  const connection = createRedisConnection(queueConfig.redisUrl, log);
  await assertRedisKeepsKeys(connection);
  // Writers and query processes often start together: the lock lets one apply the migrations.
  const applied = await withMigrationLock(connection, queueConfig.prefix, log, () => migrate(storage));
  // Also when none: which process applied each migration is read from these lines.
  log.info('applied migrations', { applied });
  const metrics = createMetrics();
  const readiness = createReadiness(metrics, { storage, redis: connection });
  const queue = createIngestQueue({ connection, prefix: queueConfig.prefix, attempts: writerSettings(env).jobAttempts, logger: log });
  const monitorQueue = createMonitorQueue({ connection, prefix: queueConfig.prefix, logger: log });
  const evaluationQueue = createEvaluationQueue({ connection, prefix: queueConfig.prefix, logger: log });
  const app = createQueryApp({
    storage,
    auth: createKeyAuthenticator(storage, authSettings(env).keyCacheTtlMs),
    queue,
    announceSettingsChange: settingsChangePublisher(connection, queueConfig.prefix),
    maskingHashKey: maskingSettings(env).hashKey,
    monitorQueue,
    monitorSettings: monitorSettings(env),
    evaluationQueue,
    evaluatorSettings: evaluatorSettings(env),
    reads: readSettings(env),
    rateLimits: rateLimitSettings(env),
    redis: connection,
    queuePrefix: queueConfig.prefix,
    retentionSettings: retentionSettings(env),
    api: apiSettings(env),
    logger: log,
  }, { metrics, readiness });
  const steps = shutdownSteps(log);
  steps.add('storage', () => storage.close());
  steps.add('redis connection', () => connection.quit());
  steps.add('evaluation queue', () => evaluationQueue.close());
  steps.add('monitor queue', () => monitorQueue.close());
  steps.add('span queue', () => queue.close());
  serveUntilSignal(app, httpSettings(env), (port) => log.info('query listening', { port }), steps, processSettings(env));
});
