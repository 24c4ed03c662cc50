import { authSettings, ConfigError, httpSettings, ingestSettings, logSettings, maskingSettings, otlpGrpcSettings, processSettings, queueSettings, storageSettings, writerSettings } from '@aos/config';
import { createKeyAuthenticator } from '@aos/http';
import { createLogger } from '@aos/log';
import { assertRedisKeepsKeys, createMetrics, createReadiness } from '@aos/metrics';
import { createIngestQueue, createLogRecordQueue, createMetricPointQueue, createRedisConnection } from '@aos/queue';
import { runMain, serveUntilSignal, shutdownSteps } from '@aos/runtime';
import { openStorage } from '@aos/storage';
import {
  MASKING_FINDINGS_FLUSH_MS,
  createIngestApp,
  createInflightBytes,
  createLogExportPipeline,
  createMetricExportPipeline,
  createMaskingFindings,
  createTraceExportPipeline,
  startOtlpGrpcReceiver,
  startProjectSettings,
} from './app.ts';

// Ingest on its own: needs REDIS_URL, and CLICKHOUSE_URL for API key lookups.
runMain(async () => {
  const env = process.env;
  const log = createLogger(logSettings(env).level, { service: 'ingest' });
  const http = httpSettings(env);
  const grpcConfig = otlpGrpcSettings(env);
  const queueConfig = queueSettings(env);
  const storageConfig = storageSettings(env);
  if (!queueConfig.redisUrl) throw new ConfigError('REDIS_URL: required when ingest runs on its own');
  if (!storageConfig.url) {
    throw new ConfigError('CLICKHOUSE_URL: required when ingest runs on its own (the embedded engine lives in the all-in-one process)');
  }
  const storage = await openStorage(storageConfig);
  const connection = createRedisConnection(queueConfig.redisUrl, log);
  await assertRedisKeepsKeys(connection);
  const metrics = createMetrics();
  const readiness = createReadiness(metrics, { storage, redis: connection });
  const attempts = writerSettings(env).jobAttempts;
  const queue = createIngestQueue({ connection, prefix: queueConfig.prefix, attempts, logger: log });
  const logQueue = createLogRecordQueue({ connection, prefix: queueConfig.prefix, attempts, logger: log });
  const metricQueue = createMetricPointQueue({ connection, prefix: queueConfig.prefix, attempts, logger: log });
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
  // One in-flight body budget for the process, whichever signal the bodies carry.
  const inflight = createInflightBytes(ingestConfig.maxInflightBytes);
  const common = { auth: createKeyAuthenticator(storage, authSettings(env).keyCacheTtlMs), settings: ingestConfig, projectSettings, maskingFindings, logger: log, metrics, inflight };
  const pipelines = {
    traces: createTraceExportPipeline({ ...common, queue }),
    logs: createLogExportPipeline({ ...common, queue: logQueue }),
    metrics: createMetricExportPipeline({ ...common, queue: metricQueue }),
  };
  const grpc = await startOtlpGrpcReceiver({ pipelines, host: http.host, settings: grpcConfig, logger: log });
  if (grpc) log.info('OTLP/gRPC listening', { address: grpc.address });
  const steps = shutdownSteps(log);
  steps.add('storage', () => storage.close());
  steps.add('redis connection', () => connection.quit());
  steps.add('metric point queue', () => metricQueue.close());
  steps.add('log record queue', () => logQueue.close());
  steps.add('span queue', () => queue.close());
  steps.add('masking findings', () => maskingFindings.close());
  steps.add('project settings', () => projectSettings.close());
  steps.add('decode pool', () => pipelines.traces.close());
  // In-flight exports still need the queue: they finish (or are cancelled) before it closes.
  if (grpc) steps.add('otlp grpc receiver', () => grpc.stop());
  serveUntilSignal(createIngestApp(pipelines, { metrics, readiness }, log), http, (port) => log.info('ingest listening', { port }), steps, processSettings(env));
});
