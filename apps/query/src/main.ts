import { authSettings, ConfigError, httpSettings, logSettings, queueSettings, storageSettings, writerSettings } from '@aos/config';
import { createKeyAuthenticator } from '@aos/http';
import { createLogger } from '@aos/log';
import { createIngestQueue, createRedisConnection } from '@aos/queue';
import { migrate, openStorage } from '@aos/storage';
import { serve } from '@hono/node-server';
import { createQueryApp } from './app.ts';

// Query on its own: needs CLICKHOUSE_URL, and REDIS_URL for the dead-letter listing.
const env = process.env;
try {
  const log = createLogger(logSettings(env).level, { service: 'query' });
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when query runs on its own');
  if (!storageConfig.url) throw new ConfigError('CLICKHOUSE_URL: required when query runs on its own (the embedded engine lives in the all-in-one process)');
  const http = httpSettings(env);
  const storage = await openStorage(storageConfig);
  await migrate(storage);
  const connection = createRedisConnection(queueConfig.redisUrl);
  const queue = createIngestQueue({ connection, prefix: queueConfig.prefix, attempts: writerSettings(env).jobAttempts });
  const app = createQueryApp({
    storage,
    auth: createKeyAuthenticator(storage, authSettings(env).keyCacheTtlMs),
    queue,
    logger: log,
  });
  const server = serve({ fetch: app.fetch, hostname: http.host, port: http.port }, (info) =>
    log.info('query listening', { port: info.port }),
  );
  const stop = () => server.close(async () => {
    await queue.close();
    await connection.quit();
    await storage.close();
    process.exit(0);
  });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack}\n`);
  process.exit(1);
}
