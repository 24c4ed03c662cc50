import type { Logger } from '@aos/log';

export interface ProjectSettingsCache<T> {
  /** The project's settings: the cached copy (reloaded in the background once stale), loaded when there is none. Throws when they cannot be loaded and no copy exists. */
  get(projectId: string): Promise<T>;
  /** Drops the project's copy (its settings changed), or every copy. */
  invalidate(projectId?: string): void;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
}

/** Projects remembered at most; beyond it the cache starts over (a reload is one small query). */
const MAX_PROJECTS = 10_000;

/**
 * Per-project settings held in memory for `ttlMs`. Concurrent requests of a project share
 * one load. A copy past its TTL still answers at once while it is reloaded in the
 * background: on the embedded engine a reload waits behind whatever statement runs (a heavy
 * read can hold it for its whole time budget), and an export must not wait with it. So a
 * change made in another process reaches ingest within the TTL plus one reload. When a
 * reload fails, the previous copy keeps serving (logged): settings that were right a moment
 * ago beat refusing every span; with no copy at all the caller fails the request (ingest
 * answers 503, so the exporter retries).
 */
export function createProjectSettingsCache<T>(opts: {
  load: (projectId: string) => Promise<T>;
  ttlMs: number;
  logger: Logger;
  now?: () => number;
}): ProjectSettingsCache<T> {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry<T>>();
  const loading = new Map<string, Promise<T>>();
  // Bumped by invalidate: a load that started before it must not store its (older) answer.
  let generation = 0;

  const load = (projectId: string): Promise<T> => {
    const pending = loading.get(projectId);
    if (pending) return pending;
    const startedIn = generation;
    const promise = opts
      .load(projectId)
      .then((value) => {
        if (startedIn === generation) {
          if (entries.size >= MAX_PROJECTS) entries.clear();
          entries.set(projectId, { value, loadedAt: now() });
        }
        return value;
      })
      .finally(() => loading.delete(projectId));
    loading.set(projectId, promise);
    return promise;
  };

  return {
    async get(projectId) {
      const entry = entries.get(projectId);
      if (!entry) return load(projectId);
      if (now() - entry.loadedAt >= opts.ttlMs && !loading.has(projectId)) {
        load(projectId).catch((err: unknown) => {
          opts.logger.warn('cannot reload project settings; using the previous copy', { projectId, error: err });
        });
      }
      return entry.value;
    },
    invalidate(projectId) {
      generation++;
      loading.clear();
      if (projectId === undefined) entries.clear();
      else entries.delete(projectId);
    },
  };
}
