import type { Redis } from '@aos/queue';
import type { Logger } from '@aos/log';
import { compilePolicy, maskingHashKey, parsePolicy, type CompiledPolicy } from '@aos/masking';
import { subscribeSettingsChanges } from '@aos/queue';
import { getMaskingPolicy, listDimensionKeys, type Storage } from '@aos/storage';
import { maskingSourceOf, type MaskingSource } from './pipeline/masking-source.ts';
import { createProjectSettingsCache } from './project-settings-cache.ts';

/** What ingest applies to a project's spans before they are queued. */
export interface IngestProjectSettings {
  /** Null when the project has no policy, or one without rules. */
  masking: CompiledPolicy | null;
  /** The same policy for a decode thread, which compiles it itself; null with `masking`. */
  maskingSource: MaskingSource | null;
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
  /** MASKING_HASH_KEY. */
  hashKey: string;
  logger: Logger;
}): Promise<ProjectSettingsSource> {
  const cache = createProjectSettingsCache<IngestProjectSettings>({
    load: async (projectId) => {
      const [keys, stored] = await Promise.all([listDimensionKeys(opts.storage, projectId), getMaskingPolicy(opts.storage, projectId)]);
      // Checked again on load: a stored policy this version cannot apply must stop ingest
      // for the project (the load fails, the request gets 503), not let raw values through.
      const policy = stored ? parsePolicy(stored.policy) : null;
      const dimensionKeys = keys.map((k) => k.key);
      if (!policy || policy.rules.length === 0) return { masking: null, maskingSource: null, dimensionKeys };
      const hashKey = maskingHashKey(opts.hashKey, projectId);
      return { masking: compilePolicy(policy, { hashKey }), maskingSource: maskingSourceOf(policy, hashKey), dimensionKeys };
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
