import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RowsRefusedError, clickhouseCodeOf, rowsRefusal, writeFailureWaits } from './insert-refusal.ts';

// The engine's own errors, made by the engine: rows it cannot parse or fit, beside faults of the world.
let dir: string;
let connection: ReturnType<typeof createChdbConnection>;
const insert = (values: string) => connection.chdb.rawInsert({ table: 't', columns: ['a', 's', 'd'], values, format: 'JSONCompactEachRow' });
const failureOf = async (run: () => Promise<unknown>): Promise<unknown> => run().then(() => expect.unreachable('the insert succeeded'), (err: unknown) => err);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'refusal-'));
  connection = createChdbConnection({ path: dir });
  const client = createClient({ connection: connection as unknown as NonNullable<Parameters<typeof createClient>[0]>['connection'] });
  await client.command({ query: 'CREATE TABLE t (a UInt32, s String, d DateTime64(9)) ENGINE = MergeTree ORDER BY a' });
});
afterAll(() => {
  connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rowsRefusal', () => {
  it('names rows the embedded engine cannot parse, or whose values do not fit their column', async () => {
    expect(rowsRefusal(await failureOf(() => insert('["not", "a row"]\n')))).toBe('parse');
    expect(rowsRefusal(await failureOf(() => insert('[1, "x", "not a time"]\n')))).toBe('parse');
    expect(rowsRefusal(await failureOf(() => insert('[-1, "x", "2026-01-01 00:00:00"]\n')))).toBe('parse');
  });

  it('reads the code of a server error (@clickhouse/client) and of a query error stated in the message', () => {
    const serverError = Object.assign(new Error('Cannot parse input'), { code: '27', type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' });
    expect(clickhouseCodeOf(serverError)).toBe(27);
    expect(rowsRefusal(serverError)).toBe('parse');
    expect(rowsRefusal(new Error('Code: 53. DB::Exception: Type mismatch in IN or VALUES section. (TYPE_MISMATCH)'))).toBe('type');
    expect(rowsRefusal(new Error('Code: 131. DB::Exception: Too large string size. (TOO_LARGE_STRING_SIZE)'))).toBe('size');
    expect(rowsRefusal(new RowsRefusedError('size', 'relayed from another thread'))).toBe('size');
  });

  it('leaves every other failure to wait: a disk refusing writes, a server that does not answer, a code it does not know', () => {
    const failures = [
      new Error('Code: 1001. DB::Exception: std::__1::filesystem::filesystem_error: filesystem error: in create_directories: Operation not permitted'),
      new Error('Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)'),
      new Error('Code: 241. DB::Exception: Memory limit (total) exceeded. (MEMORY_LIMIT_EXCEEDED)'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('Too many parts'), { code: '252', type: 'TOO_MANY_PARTS' }),
      new Error('socket hang up'),
      'not even an error',
    ];
    for (const err of failures) {
      expect(rowsRefusal(err)).toBeNull();
      expect(writeFailureWaits(err)).toBe(true);
    }
    expect(writeFailureWaits(new Error('Code: 27. DB::Exception: Cannot parse input'))).toBe(false);
  });
});
