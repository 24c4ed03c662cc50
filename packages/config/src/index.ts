export { ConfigError, parseEnv } from './env.ts';
export { ingestSettings } from './ingest-settings.ts';
export type { IngestSettings } from './ingest-settings.ts';
export {
  SETTINGS,
  apiSettings,
  authSettings,
  evaluatorSettings,
  httpSettings,
  logSettings,
  maskingSettings,
  monitorSettings,
  otlpGrpcSettings,
  processSettings,
  queueSettings,
  rateLimitSettings,
  readSettings,
  retentionSettings,
  storageSettings,
  writerSettings,
} from './settings.ts';
export type {
  ApiSettings,
  AuthSettings,
  EvaluatorSettings,
  HttpSettings,
  MaskingSettings,
  MonitorSettings,
  OtlpGrpcSettings,
  ProcessSettings,
  QueueSettings,
  RateLimitSettings,
  ReadSettings,
  RetentionSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
