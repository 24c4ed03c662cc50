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
  ProcessSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
