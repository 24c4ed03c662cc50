import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import type { Storage } from './client.ts';

/**
 * What one statement of a request may cost, enforced by the engine itself: it stops the
 * statement and answers an error once one runs out. 0 means no limit (the engine's own
 * meaning of 0 for each of these settings).
 */
export interface QueryBudget {
  /** max_execution_time. */
  timeoutSeconds: number;
  /** max_rows_to_read and max_bytes_to_read: rows and uncompressed bytes read from tables. */
  maxRowsToRead: number;
  maxBytesToRead: number;
  /** max_memory_usage of the statement. */
  maxMemoryBytes: number;
}

/** The budget of the request being served, and the signal that says its client has gone. */
interface BudgetScope {
  budget: QueryBudget;
  signal: AbortSignal | undefined;
}

const scopes = new AsyncLocalStorage<BudgetScope>();

/** Runs `fn` so that every statement a budgeted storage sends on its behalf carries `budget` and `signal`. */
export function runWithBudget<T>(budget: QueryBudget, signal: AbortSignal | undefined, fn: () => T): T {
  return scopes.run({ budget, signal }, fn);
}

function budgetSettings(budget: QueryBudget): Record<string, number> {
  return {
    max_execution_time: budget.timeoutSeconds,
    max_rows_to_read: budget.maxRowsToRead,
    max_bytes_to_read: budget.maxBytesToRead,
    max_memory_usage: budget.maxMemoryBytes,
  };
}

/** A trailing SETTINGS clause of a statement (exports carry their format settings so), before an optional FORMAT. */
const TRAILING_SETTINGS = /\bSETTINGS\s+([^()]*?)(\s+FORMAT\s+\w+)?\s*$/;
const TRAILING_FORMAT = /(\s+FORMAT\s+\w+)\s*$/;

/**
 * The statement with `settings` in its own SETTINGS clause: added to the clause it already
 * ends with, else put before its FORMAT, else appended. The clause binds this statement only;
 * on the embedded engine a SET would stick to the one session every later statement uses
 * (the writer's included).
 */
export function withSettingsClause(sql: string, settings: Record<string, number>): string {
  const list = Object.entries(settings)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
  const text = sql.trimEnd().replace(/;$/, '');
  if (TRAILING_SETTINGS.test(text)) return text.replace(TRAILING_SETTINGS, (_, own: string, format = '') => `SETTINGS ${own.trimEnd()}, ${list}${format}`);
  if (TRAILING_FORMAT.test(text)) return text.replace(TRAILING_FORMAT, (format: string) => `\nSETTINGS ${list}${format}`);
  return `${text}\nSETTINGS ${list}`;
}

interface BudgetedParams {
  query: string;
  clickhouse_settings?: ClickHouseSettings;
  abort_signal?: AbortSignal;
}

/** A call's parameters with the current request's budget and abort signal, as `engine` takes settings. */
function budgeted<P extends BudgetedParams>(engine: Storage['engine'], params: P): P {
  const scope = scopes.getStore();
  if (!scope) return params;
  // The request's signal, and the call's own if it has one: either stops the statement.
  const signals = [scope.signal, params.abort_signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const settings = budgetSettings(scope.budget);
  const withSignal = signal ? { ...params, abort_signal: signal } : params;
  if (engine === 'embedded') return { ...withSignal, query: withSettingsClause(params.query, settings) };
  return {
    ...withSignal,
    // A server stops a read-only query whose HTTP connection closes (the client's abort closes it).
    clickhouse_settings: { ...params.clickhouse_settings, ...settings, cancel_http_readonly_queries_on_client_close: 1 },
  };
}

/**
 * The storage with reads (`query`, and `exec`, which exports stream through) that carry the
 * budget and abort signal of the request they run for (runWithBudget); outside a request
 * they go out as they are. Writes are left alone: they are small and must not stop halfway.
 */
export function budgetedStorage(storage: Storage): Storage {
  const inner = storage.client;
  const client: ClickHouseClient = Object.create(inner);
  client.query = ((params: BudgetedParams) => inner.query(budgeted(storage.engine, params) as Parameters<ClickHouseClient['query']>[0])) as ClickHouseClient['query'];
  client.exec = (params) => inner.exec(budgeted(storage.engine, params));
  // The other members are the storage's own (openStorage's are closures, not methods of a class).
  return { ...storage, client };
}

/** Engine error codes of a budget running out: the time, or what the statement may read or hold. */
const TIMEOUT_CODES = new Set(['159']); // TIMEOUT_EXCEEDED
const TOO_EXPENSIVE_CODES = new Set([
  '158', // TOO_MANY_ROWS
  '307', // TOO_MANY_BYTES
  '241', // MEMORY_LIMIT_EXCEEDED
  '160', // TOO_SLOW (estimated to run past max_execution_time)
  '396', // TOO_MANY_ROWS_OR_BYTES
]);

/** Whether an error is a statement's budget running out, and which kind. */
export function budgetExceeded(err: unknown): 'timeout' | 'too_expensive' | null {
  // By shape, not class: chDB's connection builds its ClickHouseError from its own copy of the class.
  if (!(err instanceof Error) || !('type' in err) || !('code' in err) || typeof err.code !== 'string') return null;
  if (TIMEOUT_CODES.has(err.code)) return 'timeout';
  if (TOO_EXPENSIVE_CODES.has(err.code)) return 'too_expensive';
  return null;
}
