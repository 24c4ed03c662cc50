import {
  ConfigError,
  evaluatorSettings,
  httpSettings,
  logSettings,
  monitorSettings,
  processSettings,
  queueSettings,
  retentionSettings,
  storageSettings,
  writerSettings,
} from '@aos/config';
import { createLogger } from '@aos/log';
import { assertRedisKeepsKeys, createMetrics, createReadiness, createServiceApp } from '@aos/metrics';
import { createRedisConnection, withMigrationLock } from '@aos/queue';
import { runMain, serveUntilSignal, shutdownSteps } from '@aos/runtime';
import { migrate, openStorage } from '@aos/storage';
import { startWriter } from './writer.ts';

// The writer on its own: needs REDIS_URL and CLICKHOUSE_URL. Run as many as the load needs.
// It serves no API, only /healthz, /readyz and /metrics on HOST:PORT.
runMain(async () => {
  const env = process.env;
  const logLevel = logSettings(env).level;
  const log = createLogger(logLevel, { service: 'writer' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  const settings = writerSettings(env);
  const monitorConfig = monitorSettings(env);
  const http = httpSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when the writer runs on its own');
  if (!storageConfig.url) {
    throw new ConfigError('CLICKHOUSE_URL: required when the writer runs on its own (the embedded engine lives in the all-in-one process)');
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
  const writer = startWriter({
    storage,
    redisUrl: queueConfig.redisUrl,
    prefix: queueConfig.prefix,
    settings,
    monitorSettings: monitorConfig,
    evaluatorSettings: evaluatorSettings(env),
    retentionSettings: retentionSettings(env),
    logger: log,
    logLevel,
    metrics,
  });
  log.info('writer started', { threads: settings.threads, concurrency: settings.concurrency });
  const steps = shutdownSteps(log);
  steps.add('storage', () => storage.close());
  steps.add('redis connection', () => connection.quit());
  steps.add('writer', () => writer.close());
  serveUntilSignal(createServiceApp({ metrics, readiness }, log), http, (port) => log.info('writer metrics listening', { port }), steps, processSettings(env));
});
