export { ConfigError, parseEnv } from './env.ts';
export {
  SETTINGS,
  authSettings,
  httpSettings,
  ingestSettings,
  logSettings,
  maskingSettings,
  queueSettings,
  storageSettings,
  writerSettings,
} from './settings.ts';
export type {
  AuthSettings,
  HttpSettings,
  IngestSettings,
  MaskingSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
