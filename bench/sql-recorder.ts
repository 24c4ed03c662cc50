import type { ClickHouseClient } from '@clickhouse/client';

type QueryParams = Parameters<ClickHouseClient['query']>[0];
type ExecParams = Parameters<ClickHouseClient['exec']>[0];

/** One statement as the service sent it to the ClickHouse client. */
export type RecordedStatement = { kind: 'query'; params: QueryParams } | { kind: 'exec'; params: ExecParams };

/**
 * Records the statements the service sends through a ClickHouse client, and runs them again
 * straight through that client: the bare SQL an API call costs, next to which the call's
 * own time shows what the service adds (HTTP, validation, mapping, serialization).
 * Bench-only: it replaces the client's query and exec methods on this instance.
 */
export function sqlRecorder(client: ClickHouseClient) {
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  let recording: RecordedStatement[] | undefined;
  client.query = ((params: QueryParams) => {
    recording?.push({ kind: 'query', params });
    return query(params);
  }) as ClickHouseClient['query'];
  client.exec = (params: ExecParams) => {
    recording?.push({ kind: 'exec', params });
    return exec(params);
  };
  return {
    /** The statements `fn` sends (anything else the service sends meanwhile too: keep background passes off). */
    async record(fn: () => Promise<unknown>): Promise<RecordedStatement[]> {
      recording = [];
      try {
        await fn();
        return recording;
      } finally {
        recording = undefined;
      }
    },
    /** Runs the statements one after the other, reading each whole answer; returns its size in all. */
    async replay(statements: readonly RecordedStatement[]): Promise<number> {
      let size = 0;
      for (const statement of statements) {
        if (statement.kind === 'query') {
          size += (await (await query(statement.params)).text()).length;
        } else {
          for await (const chunk of (await exec(statement.params)).stream) size += (chunk as Buffer).length;
        }
      }
      return size;
    },
  };
}
