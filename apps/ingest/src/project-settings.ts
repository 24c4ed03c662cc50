import type { Redis } from '@aos/queue';
import type { Logger } from '@aos/log';
import { subscribeSettingsChanges } from '@aos/queue';
import { getMaskingPolicy, listDimensionKeys, type Storage } from '@aos/storage';
import { createProjectSettingsCache } from './project-settings-cache.ts';

/** What ingest applies to a project's spans before they are queued. */
export interface IngestProjectSettings {
  dimensionKeys: string[];
}

export interface ProjectSettingsSource {
  get(projectId: string): Promise<IngestProjectSettings>;
  close(): Promise<void>;
}

/**
 * The project settings ingest needs, cached per project and dropped as soon as another
 * process announces a change (query's POST /trace-masking, /trace-dimensions).
 */
export async function startProjectSettings(opts: {
  storage: Storage;
  /** Duplicated for the subscription, which needs a connection of its own. */
  connection: Redis;
  prefix: string;
  ttlMs: number;
  logger: Logger;
}): Promise<ProjectSettingsSource> {
  const cache = createProjectSettingsCache<IngestProjectSettings>({
    load: async (projectId) => {
      const [keys] = await Promise.all([listDimensionKeys(opts.storage, projectId), getMaskingPolicy(opts.storage, projectId)]);
      return { dimensionKeys: keys.map((k) => k.key) };
    },
    ttlMs: opts.ttlMs,
    logger: opts.logger,
  });
  const subscription = await subscribeSettingsChanges({
    connection: opts.connection.duplicate(),
    prefix: opts.prefix,
    onChange: (projectId) => cache.invalidate(projectId),
    onReconnect: () => cache.invalidate(),
    logger: opts.logger,
  });
  return { get: (projectId) => cache.get(projectId), close: () => subscription.close() };
}
