import { authSettings, ConfigError, httpSettings, ingestSettings, logSettings, maskingSettings, processSettings, queueSettings, storageSettings, writerSettings } from '@aos/config';
import { createKeyAuthenticator } from '@aos/http';
import { createLogger } from '@aos/log';
import { createIngestQueue, createRedisConnection } from '@aos/queue';
import { runMain, serveUntilSignal } from '@aos/runtime';
import { openStorage } from '@aos/storage';
import { MASKING_FINDINGS_FLUSH_MS, createIngestApp, createMaskingFindings, startProjectSettings } from './app.ts';

// Ingest on its own: needs REDIS_URL, and CLICKHOUSE_URL for API key lookups.
runMain(async () => {
  const env = process.env;
  const log = createLogger(logSettings(env).level, { service: 'ingest' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when ingest runs on its own');
  if (!storageConfig.url) {
    throw new ConfigError('CLICKHOUSE_URL: required when ingest runs on its own (the embedded engine lives in the all-in-one process)');
  }
  const storage = await openStorage(storageConfig);
  const connection = createRedisConnection(queueConfig.redisUrl, log);
  const queue = createIngestQueue({ connection, prefix: queueConfig.prefix, attempts: writerSettings(env).jobAttempts, logger: log });
  const ingestConfig = ingestSettings(env);
  const projectSettings = await startProjectSettings({
    storage,
    connection,
    prefix: queueConfig.prefix,
    ttlMs: ingestConfig.projectSettingsTtlMs,
    hashKey: maskingSettings(env).hashKey,
    logger: log,
  });
  const maskingFindings = createMaskingFindings({ storage, logger: log, flushMs: MASKING_FINDINGS_FLUSH_MS });
  const app = createIngestApp({
    auth: createKeyAuthenticator(storage, authSettings(env).keyCacheTtlMs),
    queue,
    settings: ingestConfig,
    projectSettings,
    maskingFindings,
    logger: log,
  });
  serveUntilSignal(app, httpSettings(env), (port) => log.info('ingest listening', { port }), async () => {
    await projectSettings.close();
    await maskingFindings.close();
    await queue.close();
    await connection.quit();
    await storage.close();
  }, processSettings(env));
});
