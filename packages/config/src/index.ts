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
  processSettings,
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
  ProcessSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
