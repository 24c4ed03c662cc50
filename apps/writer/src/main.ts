import { ConfigError, logSettings, queueSettings, storageSettings, writerSettings } from '@aos/config';
import { createLogger } from '@aos/log';
import { migrate, openStorage } from '@aos/storage';
import { startSpanWriter } from './span-writer.ts';

// The writer on its own: needs REDIS_URL and CLICKHOUSE_URL. Run as many as the load needs.
const env = process.env;
try {
  const log = createLogger(logSettings(env).level, { service: 'writer' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  const settings = writerSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when the writer runs on its own');
  if (!storageConfig.url) throw new ConfigError('CLICKHOUSE_URL: required when the writer runs on its own (the embedded engine lives in the all-in-one process)');
  const storage = await openStorage(storageConfig);
  await migrate(storage);
  const logLevel = logSettings(env).level;
  const writer = startSpanWriter({ storage, redisUrl: queueConfig.redisUrl, prefix: queueConfig.prefix, settings, logger: log, logLevel });
  log.info('writer started', { threads: settings.threads, concurrency: settings.concurrency });
  const stop = async () => {
    await writer.close();
    await storage.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack}\n`);
  process.exit(1);
}
