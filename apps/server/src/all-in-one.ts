import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';
import {
  apiSettings,
  authSettings,
  evaluatorSettings,
  httpSettings,
  ingestSettings,
  logSettings,
  maskingSettings,
  monitorSettings,
  otlpGrpcSettings,
  queueSettings,
  rateLimitSettings,
  readSettings,
  retentionSettings,
  storageSettings,
  writerSettings,
} from '@aos/config';
import { createKeyAuthenticator } from '@aos/http';
import {
  MASKING_FINDINGS_FLUSH_MS,
  createInflightBytes,
  createLogExportPipeline,
  createMaskingFindings,
  createMetricExportPipeline,
  createTraceExportPipeline,
  ingestRoutes,
  startOtlpGrpcReceiver,
  startProjectSettings,
} from '@aos/ingest';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { createLogger, type Logger } from '@aos/log';
import { assertRedisKeepsKeys, createMetrics, createReadiness, createServiceApp, type Metrics } from '@aos/metrics';
import { queryRoutes } from '@aos/query';
import { shutdownSteps } from '@aos/runtime';
import {
  createEvaluationQueue,
  createIngestQueue,
  createLogRecordQueue,
  createMetricPointQueue,
  createMonitorQueue,
  createRedisConnection,
  settingsChangePublisher,
  unlessRedisLost,
} from '@aos/queue';
import { createApiKey, listApiKeys, migrate, openStorage, type CreatedApiKey, type Storage } from '@aos/storage';
import { startWriter, type Writer } from '@aos/writer';
import { listen } from './http-server.ts';

export interface AllInOne {
  url: string;
  /** host:port of the OTLP/gRPC receiver; null when OTLP_GRPC_PORT is 0. */
  grpcAddress: string | null;
  /** The development key made on first run (null on later runs: it is printed once). */
  createdKey: CreatedApiKey | null;
  writer: Writer;
  storage: Storage;
  /** The HTTP app: its routes are what the OpenAPI document must describe. */
  app: Hono;
  /** The process's metrics registry, as /metrics serves it. */
  metrics: Metrics;
  stop(): Promise<void>;
}

/**
 * Ingest, writer and query in one process on one port, with the embedded engine (chDB)
 * and a private redis-server unless CLICKHOUSE_URL / REDIS_URL say otherwise.
 */
export async function startAllInOne(env: Record<string, string | undefined>, logger?: Logger): Promise<AllInOne> {
  const log = logger ?? createLogger(logSettings(env).level, { service: 'aos' });
  const http = httpSettings(env);
  const storageConfig = storageSettings(env);
  const queueConfig = queueSettings(env);
  const ingestConfig = ingestSettings(env);
  const grpcConfig = otlpGrpcSettings(env);
  const writerConfig = writerSettings(env);
  const maskingConfig = maskingSettings(env);
  const monitorConfig = monitorSettings(env);
  const evaluatorConfig = evaluatorSettings(env);
  const retentionConfig = retentionSettings(env);
  const apiConfig = apiSettings(env);
  const stops = shutdownSteps(log);
  const stop = () => stops.run();
  try {
    // Storage first: the embedded engine allows one process per data directory, so a
    // second process on the same DATA_DIR stops here, before it could reclaim the
    // private redis-server of the first.
    const storage = await openStorage(storageConfig);
    stops.add('storage', () => storage.close());
    let redisUrl = queueConfig.redisUrl;
    if (!redisUrl) {
      const redis: LocalRedis = await startLocalRedis({
        dir: path.join(storageConfig.dataDir, 'redis'),
        appendfsync: storageConfig.durability === 'strict' ? 'always' : 'everysec',
      });
      stops.add('private redis-server', () => redis.stop());
      redisUrl = redis.url;
      log.info('started a private redis-server', { url: redis.url });
    }
    const applied = await migrate(storage);
    if (applied.length > 0) log.info('applied migrations', { applied });

    const createdKey = await ensureDevelopmentKey(storage, storageConfig.dataDir);

    const connection = createRedisConnection(redisUrl, log);
    // The steps that talk to Redis are left once Redis is gone (SIGTERM during an outage):
    // the rest of the stop, storage's close above all, still runs within SHUTDOWN_TIMEOUT_MS.
    const redisStep = (step: () => Promise<unknown>) => () => unlessRedisLost(connection, step);
    stops.add('redis connection', async () => (await unlessRedisLost(connection, () => connection.quit())) || connection.disconnect());
    await assertRedisKeepsKeys(connection);
    const metrics = createMetrics();
    const readiness = createReadiness(metrics, { storage, redis: connection });
    const queue = createIngestQueue({ connection, prefix: queueConfig.prefix, attempts: writerConfig.jobAttempts, logger: log });
    stops.add('span queue', redisStep(() => queue.close()));
    const logQueue = createLogRecordQueue({ connection, prefix: queueConfig.prefix, attempts: writerConfig.jobAttempts, logger: log });
    stops.add('log record queue', redisStep(() => logQueue.close()));
    const metricQueue = createMetricPointQueue({ connection, prefix: queueConfig.prefix, attempts: writerConfig.jobAttempts, logger: log });
    stops.add('metric point queue', redisStep(() => metricQueue.close()));
    const monitorQueue = createMonitorQueue({ connection, prefix: queueConfig.prefix, logger: log });
    stops.add('monitor queue', redisStep(() => monitorQueue.close()));
    const evaluationQueue = createEvaluationQueue({ connection, prefix: queueConfig.prefix, logger: log });
    stops.add('evaluation queue', redisStep(() => evaluationQueue.close()));
    const writer = startWriter({
      storage,
      redisUrl,
      prefix: queueConfig.prefix,
      settings: writerConfig,
      monitorSettings: monitorConfig,
      evaluatorSettings: evaluatorConfig,
      retentionSettings: retentionConfig,
      logger: log,
      logLevel: logSettings(env).level,
      metrics,
    });
    stops.add('writer', redisStep(() => writer.close()));

    const projectSettings = await startProjectSettings({
      storage,
      connection,
      prefix: queueConfig.prefix,
      ttlMs: ingestConfig.projectSettingsTtlMs,
      hashKey: maskingConfig.hashKey,
      logger: log,
    });
    stops.add('project settings', redisStep(() => projectSettings.close()));
    const maskingFindings = createMaskingFindings({ storage, logger: log, flushMs: MASKING_FINDINGS_FLUSH_MS });
    stops.add('masking findings', () => maskingFindings.close());
    const announceSettingsChange = settingsChangePublisher(connection, queueConfig.prefix);
    const auth = createKeyAuthenticator(storage, authSettings(env).keyCacheTtlMs);
    // One in-flight body budget for the process, whichever signal the bodies carry.
    const inflight = createInflightBytes(ingestConfig.maxInflightBytes);
    const pipelineDeps = { auth, settings: ingestConfig, projectSettings, maskingFindings, logger: log, metrics, inflight };
    const pipelines = {
      traces: createTraceExportPipeline({ ...pipelineDeps, queue }),
      logs: createLogExportPipeline({ ...pipelineDeps, queue: logQueue }),
      metrics: createMetricExportPipeline({ ...pipelineDeps, queue: metricQueue }),
    };
    stops.add('decode pool', () => pipelines.traces.close());
    const app = createServiceApp({ metrics, readiness }, log);
    // Ingest first: its POST /traces/otlp must be answered before the read routes' key check.
    app.route('/api/v1', ingestRoutes(pipelines));
    app.route(
      '/api/v1',
      queryRoutes({
        storage,
        auth,
        queue,
        announceSettingsChange,
        maskingHashKey: maskingConfig.hashKey,
        monitorQueue,
        monitorSettings: monitorConfig,
        evaluationQueue,
        evaluatorSettings: evaluatorConfig,
        reads: readSettings(env),
        rateLimits: rateLimitSettings(env),
        redis: connection,
        queuePrefix: queueConfig.prefix,
        retentionSettings: retentionConfig,
        api: apiConfig,
        logger: log,
      }),
    );
    const server = await listen(app, http.host, http.port, http);
    stops.add('http server', () => server.close());
    // Stopped before the queue and the writer (stops run in reverse): in-flight exports finish first.
    const grpc = await startOtlpGrpcReceiver({ pipelines, host: http.host, settings: grpcConfig, logger: log });
    if (grpc) stops.add('otlp grpc receiver', () => grpc.stop());
    log.info('listening', { url: server.url, otlpGrpc: grpc?.address ?? 'off', storage: storage.engine });
    return { url: server.url, grpcAddress: grpc?.address ?? null, createdKey, writer, storage, metrics, app, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** On a fresh install there is no key at all: make one so the service can be used at once. */
async function ensureDevelopmentKey(storage: Storage, dataDir: string) {
  if ((await listApiKeys(storage)).length > 0) return null;
  const key = await createApiKey(storage, {
    projectId: 'default',
    name: 'development',
    scopes: ['ingest', 'read', 'write', 'admin'],
  });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'dev-api-key.txt'), `${key.secret}\n`, { mode: 0o600 });
  return key;
}
