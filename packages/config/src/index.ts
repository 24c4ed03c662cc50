export { ConfigError, parseEnv } from './env.ts';
export {
  SETTINGS,
  authSettings,
  httpSettings,
  ingestSettings,
  logSettings,
  queueSettings,
  storageSettings,
  writerSettings,
} from './settings.ts';
export type {
  AuthSettings,
  HttpSettings,
  IngestSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
