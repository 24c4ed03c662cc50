import { ConfigError, evaluatorSettings, logSettings, monitorSettings, processSettings, queueSettings, storageSettings, writerSettings } from '@aos/config';
import { createLogger } from '@aos/log';
import { createRedisConnection, withMigrationLock } from '@aos/queue';
import { onShutdownSignal, runMain } from '@aos/runtime';
import { migrate, openStorage } from '@aos/storage';
import { startWriter } from './writer.ts';

// The writer on its own: needs REDIS_URL and CLICKHOUSE_URL. Run as many as the load needs.
runMain(async () => {
  const env = process.env;
  const logLevel = logSettings(env).level;
  const log = createLogger(logLevel, { service: 'writer' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  const settings = writerSettings(env);
  const monitorConfig = monitorSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when the writer runs on its own');
  if (!storageConfig.url) {
    throw new ConfigError('CLICKHOUSE_URL: required when the writer runs on its own (the embedded engine lives in the all-in-one process)');
  }
  const storage = await openStorage(storageConfig);
  // Writers and query processes often start together: the lock lets one apply the migrations.
  const lockConnection = createRedisConnection(queueConfig.redisUrl, log);
  await withMigrationLock(lockConnection, queueConfig.prefix, log, () => migrate(storage));
  await lockConnection.quit();
  const writer = startWriter({
    storage,
    redisUrl: queueConfig.redisUrl,
    prefix: queueConfig.prefix,
    settings,
    monitorSettings: monitorConfig,
    evaluatorSettings: evaluatorSettings(env),
    logger: log,
    logLevel,
  });
  log.info('writer started', { threads: settings.threads, concurrency: settings.concurrency });
  onShutdownSignal(async () => {
    await writer.close();
    await storage.close();
  }, processSettings(env));
});
