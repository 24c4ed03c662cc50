import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { createClient, ClickHouseError, ClickHouseLogLevel } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../support/clickhouse-http/start.ts';

// The endpoint itself, spoken to by @clickhouse/client and by plain HTTP: what the client
// sends is answered as a server answers it, and what the endpoint does not run is refused.
let dir: string;
let endpoint: ClickHouseEndpoint;
const auth = `Basic ${Buffer.from('aos:secret').toString('base64')}`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-ch-endpoint-'));
  endpoint = await startClickHouseEndpoint({ dataDir: dir, users: { aos: { password: 'secret' }, reader: { password: 'r', readonly: true } } });
});
afterAll(async () => {
  await endpoint?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function client(options: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ url: endpoint.url, username: 'aos', password: 'secret', log: { level: ClickHouseLogLevel.OFF }, ...options });
}

describe('test ClickHouse endpoint', () => {
  it('runs DDL, inserts streamed after the query, and reads with bound parameters in the database given', async () => {
    const ch = client();
    await ch.command({ query: 'CREATE DATABASE IF NOT EXISTS ep' });
    const db = client({ database: 'ep' });
    await db.command({ query: 'CREATE TABLE t (id String, tags Array(String), n UInt64) ENGINE = MergeTree ORDER BY id' });
    const inserted = await db.insert({
      table: 't',
      values: [{ id: "a'1", tags: ['x', "it's"], n: '18446744073709551615' }, { id: 'b\t2', tags: [], n: 1 }],
      format: 'JSONEachRow',
    });
    expect(inserted.summary?.written_rows).toBe('2');
    const rows = await (
      await db.query({
        query: 'SELECT id, tags, n FROM t WHERE id IN {ids:Array(String)} AND has(tags, {tag:String}) ORDER BY id',
        query_params: { ids: ["a'1", 'b\t2'], tag: "it's" },
        clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
        format: 'JSONEachRow',
      })
    ).json();
    expect(rows).toEqual([{ id: "a'1", tags: ['x', "it's"], n: '18446744073709551615' }]);
    await Promise.all([ch.close(), db.close()]);
  });

  it('takes RowBinary inserts through the client\'s exec, bytes as the body, and counts the rows written', async () => {
    const db = client({ database: 'ep' });
    await db.command({ query: "CREATE TABLE rb (id LowCardinality(String), at DateTime64(9, 'UTC'), n UInt64, f Nullable(Float64), m Map(LowCardinality(String), String), a Array(String)) ENGINE = MergeTree ORDER BY id" });
    // Two rows by hand: a string is its LEB128 length then its UTF-8 bytes; a blank line (\n\n) inside, which cut a payload sent inline.
    const text = (s: string) => [Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)];
    const u64 = (v: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(v); return b; };
    const f64 = (v: number) => { const b = Buffer.alloc(8); b.writeDoubleLE(v); return b; };
    const rows = Buffer.concat([
      ...text('a\n\nb'), u64(1_767_607_200_123_456_789n), u64(18_446_744_073_709_551_615n), Buffer.from([1]), Buffer.from([1]), ...text('k'), ...text('東京'), Buffer.from([0]),
      ...text('c'), u64(1n), u64(0n), Buffer.from([0]), f64(-2.5), Buffer.from([0]), Buffer.from([2]), ...text(''), ...text('x'),
    ]);
    const result = await db.exec({ query: 'INSERT INTO rb (id, at, n, f, m, a) FORMAT RowBinary', values: Readable.from([rows.subarray(0, 7), rows.subarray(7)]) });
    expect(JSON.parse(result.response_headers['x-clickhouse-summary'] as string)).toMatchObject({ written_rows: '2' });
    result.stream.destroy();
    const stored = await (await db.query({ query: 'SELECT id, toString(at) AS at, toString(n) AS n, f, m, a FROM rb ORDER BY id', format: 'JSONEachRow' })).json();
    expect(stored).toEqual([
      { id: 'a\n\nb', at: '2026-01-05 10:00:00.123456789', n: '18446744073709551615', f: null, m: { k: '東京' }, a: [] },
      { id: 'c', at: '1970-01-01 00:00:00.000000001', n: '0', f: -2.5, m: {}, a: ['', 'x'] },
    ]);
    // Rows that end inside a row are the engine's parse error, as a server's.
    const cut = await db.exec({ query: 'INSERT INTO rb (id, at, n, f, m, a) FORMAT RowBinary', values: Readable.from([rows.subarray(0, 12)]) }).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ClickHouseError);
    expect(Number((cut as ClickHouseError).code)).toBeGreaterThan(0);
    await db.close();
  });

  it('applies settings to their request alone, and keeps a session\'s SET for that session', async () => {
    const ch = client();
    const setting = async (settings: Record<string, number>, session_id?: string) =>
      (await (await ch.query({ query: "SELECT getSetting('max_threads') AS v", clickhouse_settings: settings, session_id, format: 'JSONEachRow' })).json<{ v: number }>())[0]!.v;
    expect(await setting({ max_threads: 3 })).toBe(3);
    const unset = await setting({});
    expect(unset).not.toBe(3);
    await ch.command({ query: 'SET max_threads = 2', session_id: 's1' });
    expect(await setting({}, 's1')).toBe(2);
    expect(await setting({})).toBe(unset);
    await ch.close();
  });

  it('answers with the server headers, compresses when asked, and decompresses request bodies', async () => {
    const res = await fetch(`${endpoint.url}/?query_id=q-1&enable_http_compression=1&default_format=JSONEachRow`, {
      method: 'POST',
      headers: { authorization: auth, 'accept-encoding': 'gzip', 'content-encoding': 'gzip' },
      body: gzipSync('SELECT number FROM system.numbers LIMIT 3'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-clickhouse-query-id')).toBe('q-1');
    expect(res.headers.get('x-clickhouse-format')).toBe('JSONEachRow');
    expect(JSON.parse(res.headers.get('x-clickhouse-summary')!)).toMatchObject({ read_rows: '3', result_rows: '3' });
    // fetch undoes the gzip it was sent; the header says the endpoint applied it.
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect((await res.text()).trim().split('\n')).toEqual(['{"number":0}', '{"number":1}', '{"number":2}']);
    const gz = client({ compression: { request: true, response: true } });
    const rows = await (await gz.query({ query: 'SELECT 42 AS answer', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ answer: 42 }]);
    await gz.close();
  });

  it('gives errors in the server shape, which the client maps to ClickHouseError', async () => {
    const ch = client();
    const unknown = await ch.query({ query: 'SELECT * FROM no_such_table' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ClickHouseError);
    expect(unknown).toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    const res = await fetch(`${endpoint.url}/`, { method: 'POST', headers: { authorization: auth }, body: 'SELEC 1' });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('62');
    expect(await res.text()).toMatch(/^Code: 62\. DB::Exception: Syntax error.*\(SYNTAX_ERROR\)\n$/s);
    await ch.close();
  });

  it('refuses a wrong password and writes by a read-only user as a server does', async () => {
    const wrong = client({ password: 'guess' });
    expect(await wrong.query({ query: 'SELECT 1' }).catch((e: unknown) => e)).toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
    const reader = client({ username: 'reader', password: 'r' });
    expect(await (await reader.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
    expect(await reader.command({ query: 'CREATE DATABASE nope' }).catch((e: unknown) => e)).toMatchObject({ code: '164', type: 'READONLY' });
    const viaHeaders = await fetch(`${endpoint.url}/?query=SELECT%201`, { headers: { 'x-clickhouse-user': 'aos', 'x-clickhouse-key': 'secret' } });
    expect(viaHeaders.status).toBe(200);
    const writeOverGet = await fetch(`${endpoint.url}/?query=CREATE%20DATABASE%20x`, { headers: { authorization: auth } });
    expect(writeOverGet.headers.get('x-clickhouse-exception-code')).toBe('164');
    await Promise.all([wrong.close(), reader.close()]);
  });

  it('refuses loudly what it does not implement', async () => {
    const multipart = client({ use_multipart_params: true } as Partial<Parameters<typeof createClient>[0]>);
    expect(await multipart.query({ query: 'SELECT {x:UInt8}', query_params: { x: 1 } }).catch((e: unknown) => e)).toMatchObject({ code: '48', type: 'NOT_IMPLEMENTED' });
    await multipart.close();
    const refused = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${endpoint.url}${url}`, { method: 'POST', body: 'SELECT 1', ...init, headers: { authorization: auth, ...init.headers } });
      return { status: res.status, code: res.headers.get('x-clickhouse-exception-code') };
    };
    expect(await refused('/?send_progress_in_http_headers=1')).toEqual({ status: 501, code: '48' });
    expect(await refused('/', { headers: { 'content-encoding': 'zstd' } })).toEqual({ status: 501, code: '48' });
    expect(await refused('/', { headers: { authorization: 'Bearer token' } })).toEqual({ status: 501, code: '48' });
    expect(await refused('/', { body: 'CREATE TEMPORARY TABLE tmp (a UInt8)' })).toEqual({ status: 501, code: '48' });
    // Binary row formats other than RowBinary are not read by it.
    expect(await refused('/?query=INSERT%20INTO%20t%20FORMAT%20Native', { body: Buffer.from([1, 2, 3]) })).toEqual({ status: 501, code: '48' });
    expect((await refused('/play')).code).toBe('1');
    expect((await refused('/?no_such_setting=1')).code).toBe('115');
  });
});
