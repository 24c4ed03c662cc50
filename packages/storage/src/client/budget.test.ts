import { describe, expect, it } from 'vitest';
import { ClickHouseError } from '@clickhouse/client';
import type { Storage } from './client.ts';
import { budgetExceeded, budgetedStorage, runWithBudget, withSettingsClause } from './budget.ts';

const settings = { max_execution_time: 5, max_rows_to_read: 100 };

describe('withSettingsClause', () => {
  it('appends a SETTINGS clause to a statement without one', () => {
    expect(withSettingsClause('SELECT 1 FROM t WHERE x = {x:UInt8};  ', settings)).toBe('SELECT 1 FROM t WHERE x = {x:UInt8}\nSETTINGS max_execution_time = 5, max_rows_to_read = 100');
  });

  it("adds to the statement's own trailing clause, before its FORMAT", () => {
    expect(withSettingsClause('SELECT a FROM (SELECT 1 AS a) SETTINGS output_format_csv_crlf_end_of_line = 1\n FORMAT CSV', settings)).toBe(
      'SELECT a FROM (SELECT 1 AS a) SETTINGS output_format_csv_crlf_end_of_line = 1, max_execution_time = 5, max_rows_to_read = 100\n FORMAT CSV',
    );
  });

  it('puts the clause before a FORMAT the statement ends with', () => {
    expect(withSettingsClause('SELECT 1 FORMAT TSVRaw', settings)).toBe('SELECT 1\nSETTINGS max_execution_time = 5, max_rows_to_read = 100 FORMAT TSVRaw');
  });

  it('leaves a SETTINGS word inside a subquery alone', () => {
    const sql = 'SELECT * FROM (SELECT 1 SETTINGS max_threads = 1) WHERE 1';
    expect(withSettingsClause(sql, settings)).toBe(`${sql}\nSETTINGS max_execution_time = 5, max_rows_to_read = 100`);
  });
});

describe('budgetExceeded', () => {
  const engineError = (code: string, type: string) => new ClickHouseError({ message: 'engine text', code, type });

  it('tells a time budget from a read or memory budget', () => {
    expect(budgetExceeded(engineError('159', 'TIMEOUT_EXCEEDED'))).toBe('timeout');
    expect(budgetExceeded(engineError('158', 'TOO_MANY_ROWS'))).toBe('too_expensive');
    expect(budgetExceeded(engineError('307', 'TOO_MANY_BYTES'))).toBe('too_expensive');
    expect(budgetExceeded(engineError('241', 'MEMORY_LIMIT_EXCEEDED'))).toBe('too_expensive');
  });

  it('is null for other errors', () => {
    expect(budgetExceeded(engineError('62', 'SYNTAX_ERROR'))).toBeNull();
    expect(budgetExceeded(new Error('Timeout exceeded'))).toBeNull();
  });
});

describe('budgetedStorage', () => {
  const budget = { timeoutSeconds: 3, maxRowsToRead: 10, maxBytesToRead: 20, maxMemoryBytes: 30 };
  /** A storage whose client records what each query was sent with. */
  function recording(engine: Storage['engine']) {
    const sent: Array<Record<string, unknown>> = [];
    const client = { query: async (params: Record<string, unknown>) => void sent.push(params) } as unknown as Storage['client'];
    const storage: Storage = { client, engine, cluster: undefined, durability: 'standard', insertRows: async () => {}, close: async () => {} };
    return { storage: budgetedStorage(storage), sent };
  }

  it('sends a server the budget as settings, beside the query name, with the abort signal', async () => {
    const { storage, sent } = recording('server');
    const signal = new AbortController().signal;
    await runWithBudget(budget, signal, () => storage.client.query({ query: 'SELECT 1', clickhouse_settings: { log_comment: 'traces.summary' } }));
    expect(sent[0]).toEqual({
      query: 'SELECT 1',
      abort_signal: signal,
      clickhouse_settings: {
        log_comment: 'traces.summary',
        max_execution_time: 3,
        max_rows_to_read: 10,
        max_bytes_to_read: 20,
        max_memory_usage: 30,
        cancel_http_readonly_queries_on_client_close: 1,
      },
    });
  });

  it("puts the budget in the embedded engine's statement, and nothing outside a request", async () => {
    const { storage, sent } = recording('embedded');
    await runWithBudget(budget, undefined, () => storage.client.query({ query: 'SELECT 1' }));
    await storage.client.query({ query: 'SELECT 2' });
    expect(sent).toEqual([
      { query: 'SELECT 1\nSETTINGS max_execution_time = 3, max_rows_to_read = 10, max_bytes_to_read = 20, max_memory_usage = 30' },
      { query: 'SELECT 2' },
    ]);
  });
});
