import type { ClickHouseSettings } from '@clickhouse/client';

/**
 * A query's name, `<domain>.<what>` (`traces.summary`, `monitors.states.read`): the domain
 * is the storage folder the query lives in, and every call site has its own name
 * (query-name.test.ts checks both).
 */
export type QueryName = `${string}.${string}`;

/**
 * The `clickhouse_settings` to spread into a client call so the query carries its name.
 * A server gets the name as `log_comment`, so `system.query_log` shows which code ran it.
 * The embedded engine gets only the settings the call passes: chDB sends each per-query
 * setting as a SET statement ahead of the query, a cost for a name nobody reads there.
 */
export function named(
  // Not Pick<Storage, 'engine'>: client.ts calls this, and importing its Storage here would be a module cycle.
  storage: { readonly engine: 'embedded' | 'server' },
  name: QueryName,
  settings?: ClickHouseSettings,
): { clickhouse_settings?: ClickHouseSettings } {
  if (storage.engine === 'server') return { clickhouse_settings: { ...settings, log_comment: name } };
  return settings ? { clickhouse_settings: settings } : {};
}
