export { ConfigError, parseEnv } from './env.ts';
export {
  SETTINGS,
  authSettings,
  evaluatorSettings,
  httpSettings,
  ingestSettings,
  logSettings,
  queueSettings,
  storageSettings,
  writerSettings,
} from './settings.ts';
export type {
  AuthSettings,
  EvaluatorSettings,
  HttpSettings,
  IngestSettings,
  QueueSettings,
  StorageSettings,
  WriterSettings,
} from './settings.ts';
