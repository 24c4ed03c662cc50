import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/**
 * Announcements that a project's settings (masking policy, dimension keys) changed, so
 * every process holding a copy drops it at once instead of waiting for its TTL. Pub/sub
 * delivers at most once and only to connected subscribers; the TTL covers what it misses.
 */
function channelOf(prefix: string): string {
  return `${prefix}:project-settings-changed`;
}

export type SettingsChangePublisher = (projectId: string) => Promise<void>;

export function settingsChangePublisher(connection: Redis, prefix: string): SettingsChangePublisher {
  const channel = channelOf(prefix);
  return async (projectId) => {
    await connection.publish(channel, projectId);
  };
}

export interface SettingsChangeSubscription {
  close(): Promise<void>;
}

/**
 * Calls `onChange(projectId)` for every announcement. Takes its own connection (a
 * subscribed connection can do nothing else); on a reconnect ioredis subscribes again,
 * and `onReconnect` lets the caller drop everything, as announcements may have been missed.
 */
export async function subscribeSettingsChanges(opts: {
  connection: Redis;
  prefix: string;
  onChange: (projectId: string) => void;
  onReconnect: () => void;
  logger?: Logger;
}): Promise<SettingsChangeSubscription> {
  const channel = channelOf(opts.prefix);
  const { connection } = opts;
  connection.on('error', throttledErrorLog(opts.logger, 'settings subscription: redis connection error; retrying'));
  connection.on('message', (from: string, projectId: string) => {
    if (from === channel) opts.onChange(projectId);
  });
  let connectedOnce = false;
  connection.on('ready', () => {
    if (connectedOnce) opts.onReconnect();
    connectedOnce = true;
  });
  await connection.subscribe(channel);
  connectedOnce = true;
  return {
    close: async () => {
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}
