import { describe, expect, it } from 'vitest';
import { ConfigError } from './env.ts';
import { ingestSettings } from './ingest-settings.ts';
import {
  apiSettings,
  authSettings,
  httpSettings,
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
} from './settings.ts';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('settings', () => {
  it('has working defaults for an empty environment', () => {
    expect(httpSettings({})).toEqual({ host: '127.0.0.1', port: 8080, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
    expect(storageSettings({})).toEqual({
      url: undefined,
      user: 'default',
      password: '',
      caCertFile: undefined,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 120_000,
      readRetries: 2,
      database: 'aos',
      cluster: undefined,
      dataDir: './data',
      engineThreadsNice: 10,
      durability: 'standard',
    });
    expect(queueSettings({})).toEqual({ redisUrl: undefined, prefix: 'aos' });
    expect(authSettings({})).toEqual({ keyCacheTtlMs: 10_000 });
    expect(apiSettings({})).toEqual({ maxBodyBytes: 4 * 1024 * 1024 });
    expect(ingestSettings({})).toEqual({
      maxAttributeBytes: 256 * 1024,
      modelPricesFile: undefined,
      maxBodyBytes: 64 * 1024 * 1024,
      maxQueueDepth: 500,
      maxQueueSeconds: 10,
      retryAfterSeconds: 5,
      projectSettingsTtlMs: 5000,
      maxInflightBytes: 256 * 1024 * 1024,
      decodeThreads: 2,
      decodeThreadMinBytes: 64 * 1024,
      decodeTimeLimitMs: 1000,
      limits: { maxAttributes: 1024, maxEvents: 1024, maxLinks: 128, maxValueLength: 1024 * 1024, maxValueDepth: 16 },
    });
    expect(otlpGrpcSettings({})).toEqual({ port: 4317, tls: null });
    expect(readSettings({}).budgets.heavy).toEqual({ timeoutSeconds: 15, maxRowsToRead: 1e9, maxBytesToRead: 100 * 1024 ** 3, maxMemoryBytes: 4 * 1024 ** 3 });
    expect(readSettings({ QUERY_LIGHT_TIMEOUT_SECONDS: '2' }).budgets.light.timeoutSeconds).toBe(2);
    expect(rateLimitSettings({})).toEqual({ keyRequestsPerSecond: 50, projectRequestsPerSecond: 200, keyHeavyConcurrency: 4 });
    expect(maskingSettings({})).toEqual({ hashKey: '' });
    expect(writerSettings({})).toMatchObject({ concurrency: 32, batchMaxRows: 50_000, modelPricesFile: undefined });
    expect(logSettings({})).toEqual({ level: 'info' });
    expect(monitorSettings({})).toEqual({ minIntervalSeconds: 60, webhookAttempts: 8, webhookBackoffMs: 2000, webhookTimeoutMs: 10_000, allowPrivateUrls: false });
    expect(monitorSettings({ ALLOW_PRIVATE_OUTBOUND_URLS: 'true' }).allowPrivateUrls).toBe(true);
    // Unset: nothing expires.
    expect(retentionSettings({})).toEqual({ defaultDays: null, intervalMs: 3_600_000 });
  });

  it('takes a retention in whole days, at least one', () => {
    expect(retentionSettings({ RETENTION_DAYS: '30' }).defaultDays).toBe(30);
    expect(messageOf(() => retentionSettings({ RETENTION_DAYS: '0' }))).toContain('RETENTION_DAYS: must be at least 1');
    expect(messageOf(() => retentionSettings({ RETENTION_DAYS: '1.5' }))).toContain('RETENTION_DAYS: must be a whole number');
  });

  it('parses integers and names the variable that is out of bounds', () => {
    expect(httpSettings({ PORT: '0' }).port).toBe(0);
    expect(writerSettings({ WRITER_CONCURRENCY: '4' }).concurrency).toBe(4);
    expect(messageOf(() => httpSettings({ PORT: '70000' }))).toContain('PORT: must be at most 65535');
    expect(messageOf(() => writerSettings({ WRITER_CONCURRENCY: '0' }))).toContain('WRITER_CONCURRENCY: must be at least 1');
    expect(messageOf(() => ingestSettings({ INGEST_MAX_BODY_BYTES: '100' }))).toContain(
      'INGEST_MAX_BODY_BYTES: must be at least 1024',
    );
    expect(apiSettings({ API_MAX_BODY_BYTES: '65536' }).maxBodyBytes).toBe(65_536);
    expect(messageOf(() => apiSettings({ API_MAX_BODY_BYTES: '1000' }))).toContain('API_MAX_BODY_BYTES: must be at least 1024');
    expect(messageOf(() => apiSettings({ API_MAX_BODY_BYTES: '4MiB' }))).toContain('API_MAX_BODY_BYTES: must be a whole number');
  });

  it('reports several problems together', () => {
    const message = messageOf(() =>
      writerSettings({ WRITER_CONCURRENCY: 'many', WRITER_JOB_ATTEMPTS: '1000', WRITER_LOCK_DURATION_MS: '10' }),
    );
    expect(message).toContain('WRITER_CONCURRENCY');
    expect(message).toContain('WRITER_JOB_ATTEMPTS');
    expect(message).toContain('WRITER_LOCK_DURATION_MS');
  });

  it('treats an empty string as unset', () => {
    expect(storageSettings({ CLICKHOUSE_DATABASE: '', CLICKHOUSE_URL: '' })).toMatchObject({ database: 'aos', url: undefined });
    expect(httpSettings({ PORT: '' }).port).toBe(8080);
  });

  it('refuses a database or cluster name that is not a plain identifier', () => {
    expect(storageSettings({ CLICKHOUSE_DATABASE: 'obs_2' }).database).toBe('obs_2');
    for (const bad of ['aos; DROP TABLE spans', 'my-db', '1db', 'a.b']) {
      expect(messageOf(() => storageSettings({ CLICKHOUSE_DATABASE: bad }))).toContain(
        'CLICKHOUSE_DATABASE: must be a plain identifier',
      );
    }
    expect(messageOf(() => storageSettings({ CLICKHOUSE_CLUSTER: '{cluster}' }))).toContain('CLICKHOUSE_CLUSTER');
  });

  it('validates REDIS_URL and CLICKHOUSE_URL as URLs', () => {
    expect(queueSettings({ REDIS_URL: 'redis://127.0.0.1:6379/0' }).redisUrl).toBe('redis://127.0.0.1:6379/0');
    expect(storageSettings({ CLICKHOUSE_URL: 'http://ch:8123' }).url).toBe('http://ch:8123');
    expect(messageOf(() => queueSettings({ REDIS_URL: 'not a url' }))).toContain('REDIS_URL: must be a URL');
    expect(messageOf(() => storageSettings({ CLICKHOUSE_URL: 'http://' }))).toContain('CLICKHOUSE_URL: must be a URL');
    // A host:port without a scheme parses as a URL with scheme "localhost:"; the scheme check catches it.
    expect(messageOf(() => queueSettings({ REDIS_URL: 'localhost:6379' }))).toContain('REDIS_URL: must start with redis:// or rediss://');
    expect(messageOf(() => storageSettings({ CLICKHOUSE_URL: 'tcp://ch:9000' }))).toContain('CLICKHOUSE_URL: must start with http:// or https://');
  });

  it('takes ClickHouse credentials from their variables only, and a CA only for https', () => {
    expect(messageOf(() => storageSettings({ CLICKHOUSE_URL: 'http://aos:secret@clickhouse:8123' }))).toMatch(/CLICKHOUSE_URL: must not carry credentials; set CLICKHOUSE_USER and CLICKHOUSE_PASSWORD/);
    expect(messageOf(() => storageSettings({ CLICKHOUSE_URL: 'http://clickhouse:8123', CLICKHOUSE_CA_CERT: '/ca.pem' }))).toMatch(/CLICKHOUSE_CA_CERT: only with an https:\/\/ CLICKHOUSE_URL/);
    expect(storageSettings({ CLICKHOUSE_URL: 'https://clickhouse:8443', CLICKHOUSE_CA_CERT: '/ca.pem' }).caCertFile).toBe('/ca.pem');
  });

  it('takes OTLP_GRPC_PORT=0 as off, and TLS files only as a pair', () => {
    expect(otlpGrpcSettings({ OTLP_GRPC_PORT: '0' }).port).toBe(0);
    expect(otlpGrpcSettings({ OTLP_GRPC_TLS_CERT_FILE: '/etc/aos/cert.pem', OTLP_GRPC_TLS_KEY_FILE: '/etc/aos/key.pem' }).tls).toEqual({
      certFile: '/etc/aos/cert.pem',
      keyFile: '/etc/aos/key.pem',
    });
    expect(messageOf(() => otlpGrpcSettings({ OTLP_GRPC_PORT: '65536' }))).toContain('OTLP_GRPC_PORT: must be at most 65535');
    for (const one of [{ OTLP_GRPC_TLS_CERT_FILE: '/etc/aos/cert.pem' }, { OTLP_GRPC_TLS_KEY_FILE: '/etc/aos/key.pem' }]) {
      expect(messageOf(() => otlpGrpcSettings(one))).toContain('OTLP_GRPC_TLS_CERT_FILE, OTLP_GRPC_TLS_KEY_FILE: set both');
    }
  });

  it('refuses an unknown log level', () => {
    expect(logSettings({ LOG_LEVEL: 'warn' }).level).toBe('warn');
    expect(messageOf(() => logSettings({ LOG_LEVEL: 'verbose' }))).toContain('LOG_LEVEL: must be one of debug, info, warn, error');
  });
});
