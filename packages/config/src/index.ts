export { ConfigError, parseEnv } from './env.ts';
export {
  SETTINGS,
  authSettings,
  evaluatorSettings,
  httpSettings,
  ingestSettings,
  logSettings,
  maskingSettings,
  monitorSettings,
  otlpGrpcSettings,
  queueSettings,
  storageSettings,
  writerSettings,
} from './settings.ts';
export type {
  AuthSettings,
  EvaluatorSettings,
  HttpSettings,
  IngestSettings,
  MaskingSettings,
  MonitorSettings,
  OtlpGrpcSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
