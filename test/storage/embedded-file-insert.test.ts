import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable, spanRowsFromExport, type SpanRow } from '@aos/domain';
import { decodeJsonExport } from '@aos/otlp';
import { SPAN_COLUMNS, SPAN_COLUMN_TYPES, encodeSpanRows, encodeSpanRowsRowBinary, insertSpanLogRecords, migrate, openStorage, rowsRefusal, spanRowBinaryRowCount, type Storage } from '@aos/storage';
import { insertFileDirectory, openFileInserts } from '../../packages/storage/src/client/embedded-file-insert.ts';
import { agentTraces, traceHex, type ChildSpan } from '../support/agent-traces.ts';
import { storageSettingsForTest } from '../support/storage.ts';

let dir: string;
let storage: Storage;
/** A second handle on the same engine session, for today's raw insert to compare with. */
let raw: ChdbConnection;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-file-insert-'));
  storage = await openStorage(storageSettingsForTest(dir));
  await migrate(storage);
  raw = createChdbConnection({ path: path.join(dir, 'clickhouse') });
  const [{ db }] = (await query<{ db: string }>('SELECT currentDatabase() AS db')) as [{ db: string }];
  await raw.chdb.queryAsync(`USE ${db}`);
});
afterAll(async () => {
  const directory = insertFileDirectory(path.join(dir, 'clickhouse'), dir);
  await storage?.close();
  // Closing removes the insert-file directory: temporary data directories leave nothing behind.
  expect(existsSync(directory)).toBe(false);
  rmSync(dir, { recursive: true, force: true });
});

const query = async <T>(sql: string) => (await storage.client.query({ query: sql, format: 'JSONEachRow' })).json<T>();

/** Text that trips parsers: quotes, escapes, tabs, newlines, blank lines, non-ASCII, surrogate pairs. */
const AWKWARD = 'a "quoted" it\'s\ttab\\back\nline\n\nblank naïve 東京 🙂 \u0000nul {"json":[1,2]} C:\\path';

/** Agent spans as ingest normalizes them (decode, normalize): ~`size` bytes of text each. */
function agentSpanRows(traces: number, size: number, seed: number): SpanRow[] {
  // Cut by code points: a lone surrogate is not text the engine takes as JSON.
  const text = (i: number) => [...`${AWKWARD} ${i} `.repeat(Math.ceil(size / 80))].slice(0, size).join('');
  const start = Date.UTC(2026, 0, 5, 10) * 1e6;
  const json = agentTraces(
    Array.from({ length: traces }, (_, i) => ({
      traceId: traceHex(seed * 1_000_000 + i),
      startNs: start + i * 1e9,
      input: text(i),
      output: text(i + 1),
      rootAttrs: { 'session.id': `s-${i % 7}`, 'user.id': AWKWARD, 'custom.key': i },
      children: <ChildSpan[]>[
        { name: 'chat gpt-4o', attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1200 + i, 'gen_ai.usage.output_tokens': 300 } },
        { name: 'execute_tool search', attrs: { 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': `{"q":${JSON.stringify(AWKWARD)}}` }, error: i % 5 === 0 },
      ],
    })),
  );
  return spanRowsFromExport(decodeJsonExport(JSON.stringify(json)), { projectId: 'p-file', receivedAtMs: 1_767_600_000_000 + seed, prices: loadPriceTable(), maxValueBytes: 262_144 });
}

/** The same spans as JSONCompactEachRow bytes, the rows' format before RowBinary. */
const encodedSpans = (traces: number, size: number, seed: number) => Buffer.from(encodeSpanRows(agentSpanRows(traces, size, seed)));

/** Count and a digest of every column of a table (materialized ones too), column by column. */
async function digestByColumn(table: string): Promise<Record<string, string>> {
  const columns = await query<{ name: string }>(`SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '${table}' ORDER BY position`);
  const parts = columns.map((c) => `toString(groupBitXor(cityHash64(${c.name}))) AS ${c.name}`);
  const [digest] = await query<Record<string, string>>(`SELECT toString(count()) AS _rows, ${parts.join(', ')} FROM ${table}`);
  return digest!;
}

const activeParts = async (table: string) =>
  Number((await query<{ n: string }>(`SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`))[0]!.n);

describe('inserts through a file on the embedded engine', () => {
  it('stores exactly the rows the raw insert stores, in one part per insert', async () => {
    await storage.client.command({ query: 'CREATE TABLE spans_inline AS spans' });
    await storage.client.command({ query: 'CREATE TABLE spans_file AS spans' });
    // Over 10 MB, so the engine's parallel parser cuts the rows into several chunks.
    const body = encodedSpans(1_500, 4_000, 1);
    expect(body.length).toBeGreaterThan(12 * 2 ** 20);
    // Two parts of one insert, as the writer hands a block over (one per job, as Redis held them).
    const cut = body.indexOf('\n', body.length >> 1) + 1;
    await raw.chdb.rawInsert({ table: 'spans_inline', columns: [...SPAN_COLUMNS], values: body, format: 'JSONCompactEachRow' });
    await storage.insertRows('spans_file', SPAN_COLUMNS, 'JSONCompactEachRow', [body.subarray(0, cut), body.subarray(cut)]);

    const [inline, file] = [await digestByColumn('spans_inline'), await digestByColumn('spans_file')];
    expect(inline._rows).toBe('4500');
    expect(file).toEqual(inline);
    expect(await activeParts('spans_file')).toBe(1);
    expect(await activeParts('spans_inline')).toBe(1);
    // The rows really carry what the digests cover: nullable, map and 64-bit values and the awkward text.
    const [chat] = await query<Record<string, unknown>>("SELECT input_tokens, time_to_first_token_ms, start_time FROM spans_file WHERE name = 'chat gpt-4o' ORDER BY start_time LIMIT 1");
    expect(chat).toEqual({ input_tokens: '1200', time_to_first_token_ms: null, start_time: '2026-01-05 10:00:00.001000000' });
    const [root] = await query<Record<string, unknown>>("SELECT user_id, attributes['custom.key'] AS key FROM spans_file WHERE name = 'agent run' ORDER BY start_time LIMIT 1");
    expect(root).toEqual({ user_id: AWKWARD, key: '0' });
  });

  it('stores text rows and a DateTime64(3) column of the log records as the raw insert does', async () => {
    await storage.client.command({ query: 'CREATE TABLE records_inline AS span_log_records' });
    const records = [0, 1, 2].map((i) => ({ traceId: traceHex(i), spanId: '0000000000000001', timeUnixNano: `${1_767_600_000_000_000_000 + i}`, eventName: 'gen_ai.user.message', attributes: { awkward: AWKWARD }, body: { content: AWKWARD } }));
    await insertSpanLogRecords(storage, 'p-file', 1_767_600_000_123, records as never);
    // The same rows the raw way: read back as JSONCompactEachRow and inserted inline.
    const rows = await storage.client.query({ query: 'SELECT * FROM span_log_records', format: 'JSONCompactEachRow' }).then((r) => r.text());
    const columns = (await query<{ name: string }>("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'span_log_records' ORDER BY position")).map((c) => c.name);
    await raw.chdb.rawInsert({ table: 'records_inline', columns, values: Buffer.from(rows), format: 'JSONCompactEachRow' });
    expect(await digestByColumn('span_log_records')).toEqual(await digestByColumn('records_inline'));
    expect((await digestByColumn('records_inline'))._rows).toBe('3');
  });

  it('keeps the engine’s refusal of bad rows, its code and text, and removes the file', async () => {
    const refusal = await storage.insertRows('spans', SPAN_COLUMNS, 'JSONCompactEachRow', '["only one column"]\n').catch((e: Error) => e);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toMatch(/^Code: \d+\. DB::Exception: /);
    const unknown = await storage.insertRows('no_such_table', ['n'], 'JSONEachRow', '{"n":1}\n').catch((e: Error) => e);
    expect((unknown as Error).message).toMatch(/^Code: 60\. DB::Exception: .*UNKNOWN_TABLE/s);
    expect(readdirSync(insertDirectory())).toEqual([]);
  });

  it('surfaces a failure to write the file as Node’s own error, with its errno code', async () => {
    const own = { path: mkdtempSync(path.join(tmpdir(), 'aos-file-insert-memory-')), minBytes: 0 };
    const inserts = openFileInserts(path.join(dir, 'clickhouse'), dir, (sql, format) => raw.chdb.queryAsync(sql, { format }), own);
    rmSync(inserts.directory, { recursive: true }); // the directory vanished: the write fails before the engine is asked
    const failed = await inserts.insert('spans', SPAN_COLUMNS, 'JSONCompactEachRow', [encodedSpans(2, 100, 2)]).catch((e: NodeJS.ErrnoException) => e);
    expect(failed).toMatchObject({ code: 'ENOENT', syscall: 'open' });
    expect((failed as Error).message).not.toMatch(/DB::Exception/);
    rmSync(own.path, { recursive: true, force: true });
  });

  it('clears the files a crashed process left, and keeps them in a directory of its own', async () => {
    const own = { path: mkdtempSync(path.join(tmpdir(), 'aos-file-insert-memory-')), minBytes: 0 };
    const engineDir = path.join(dir, 'clickhouse');
    const first = insertFileDirectory(engineDir, dir, own);
    writeFileSync(path.join(first, '7.JSONCompactEachRow'), '["left by a crash"]\n');
    const inserts = openFileInserts(engineDir, dir, (sql, format) => raw.chdb.queryAsync(sql, { format }), own);
    expect(inserts.directory).toBe(first);
    expect(readdirSync(first)).toEqual([]);
    // Another engine directory gets another directory; a memory filesystem that is missing, too
    // small or not ours, the data directory.
    expect(insertFileDirectory(path.join(dir, 'other'), dir, own)).not.toBe(first);
    const onDisk = path.join(dir, 'insert-files');
    expect(insertFileDirectory(engineDir, dir, { path: path.join(own.path, 'missing', 'deeper'), minBytes: 0 })).toBe(onDisk);
    expect(insertFileDirectory(engineDir, dir, { path: own.path, minBytes: 2 ** 60 })).toBe(onDisk);
    chmodSync(first, 0o755); // readable by others: not private
    expect(insertFileDirectory(engineDir, dir, own)).toBe(onDisk);
    rmSync(own.path, { recursive: true, force: true });
  });
});

describe('span rows as RowBinary', () => {
  it('lays every column out as the migrated spans table types it', async () => {
    const described = await query<{ name: string; type: string }>('DESCRIBE TABLE spans');
    const types = new Map(described.map((d) => [d.name, d.type]));
    expect(Object.fromEntries(SPAN_COLUMNS.map((c) => [c, types.get(c)]))).toEqual(SPAN_COLUMN_TYPES);
  });

  it('stores through a file exactly the rows JSONCompactEachRow stores, column by column, edge cases included', async () => {
    await storage.client.command({ query: 'CREATE TABLE spans_json AS spans' });
    await storage.client.command({ query: 'CREATE TABLE spans_rowbinary AS spans' });
    const [agent, other] = agentSpanRows(2, 300, 3);
    const rows = [...agentSpanRows(400, 600, 4), ...edgeRows(agent!, other!)];
    const half = rows.length >> 1;
    await storage.insertRows('spans_json', SPAN_COLUMNS, 'JSONCompactEachRow', encodeSpanRows(rows));
    // Two parts of one insert, each from its own call (the encoder reuses its buffer between calls).
    const parts = [encodeSpanRowsRowBinary(rows.slice(0, half)), encodeSpanRowsRowBinary(rows.slice(half))];
    expect(parts.map(spanRowBinaryRowCount)).toEqual([half, rows.length - half]);
    await storage.insertRows('spans_rowbinary', SPAN_COLUMNS, 'RowBinary', parts);

    const [json, rowBinary] = [await digestByColumn('spans_json'), await digestByColumn('spans_rowbinary')];
    expect(json._rows).toBe(String(rows.length));
    expect(rowBinary).toEqual(json);
    // One insert each: a part per month the rows fall in (the edge rows' times span three).
    expect(await activeParts('spans_rowbinary')).toBe(3);
    expect(await activeParts('spans_json')).toBe(3);
    // The digests cover these values: read back, they are the edge rows' own.
    const edges = await query<Record<string, unknown>>(
      "SELECT span_id, input_tokens, total_tokens, cost, duration_ms, time_to_first_token_ms, toString(start_time) AS start, length(attributes) AS keys, user_id FROM spans_rowbinary WHERE span_id LIKE 'edge-%' ORDER BY span_id",
    );
    expect(edges).toEqual([
      { span_id: 'edge-empty', input_tokens: '0', total_tokens: '0', cost: 0, duration_ms: 0, time_to_first_token_ms: null, start: '2026-01-05 10:00:00.000000001', keys: '0', user_id: '' },
      { span_id: 'edge-large', input_tokens: String(2 ** 60), total_tokens: '9007199254740992', cost: -1.25, duration_ms: 0.000001, time_to_first_token_ms: -3.5, start: '2106-02-07 06:28:15.999999999', keys: '5000', user_id: AWKWARD },
      { span_id: 'edge-max', input_tokens: String(2 ** 64 - 2048), total_tokens: String(2 ** 63), cost: 1e-300, duration_ms: 123456.789012, time_to_first_token_ms: 0.1, start: '2001-09-09 01:46:40.100000000', keys: '1', user_id: '東京 🙂' },
    ]);
  });

  it('writes a span sent twice in one insert as it comes (no merge pass at insert): reads with FINAL, merges and span_hour_writes see what they saw before', async () => {
    const first = agentSpanRows(3, 200, 7).map((r) => ({ ...r, project_id: 'p-twice' }));
    const again = first.map((r) => ({ ...r, output: 'sent again', ingested_at: r.ingested_at + 1 }));
    await storage.insertRows('spans', SPAN_COLUMNS, 'RowBinary', [encodeSpanRowsRowBinary([...first, ...again])]);
    const count = async (final: string) => Number((await query<{ n: string }>(`SELECT count() AS n FROM spans ${final} WHERE project_id = 'p-twice'`))[0]!.n);

    // Both copies in the part: the insert ran without optimize_on_insert (row-insert-settings.ts).
    expect(await count('')).toBe(2 * first.length);
    // A read with FINAL sees one row per span, the newer one, as it would had the insert collapsed them.
    expect(await count('FINAL')).toBe(first.length);
    const outputs = await query<{ output: string }>("SELECT DISTINCT output FROM spans FINAL WHERE project_id = 'p-twice'");
    expect(outputs).toEqual([{ output: 'sent again' }]);
    // The view counts every row sent, as before.
    const [written] = await query<{ n: string }>("SELECT toString(sum(written)) AS n FROM span_hour_writes WHERE project_id = 'p-twice'");
    expect(written!.n).toBe(String(2 * first.length));
    // A merge leaves one on disk.
    await storage.client.command({ query: 'OPTIMIZE TABLE spans FINAL' });
    expect(await count('')).toBe(first.length);
  });

  it('writes an inserted block as a compact part, and a part of more than 128 MiB as a wide one (migration 0026)', async () => {
    const partTypes = async (project: string) =>
      query<{ part_type: string }>(
        `SELECT DISTINCT part_type FROM system.parts WHERE database = currentDatabase() AND table = 'spans' AND active AND name IN (SELECT DISTINCT _part FROM spans WHERE project_id = '${project}')`,
      );
    const rows = agentSpanRows(10, 200, 8);
    const withInput = (project: string, count: number, input: string) => Array.from({ length: count }, (_, i) => ({ ...rows[i % rows.length]!, project_id: project, span_id: `s-${i}`, input }));
    const megabyte = 'x'.repeat(1_000_000);
    // 20 MB of column data: past the engine's default threshold (10 MiB, wide before 0026), under 128 MiB.
    await storage.insertRows('spans', SPAN_COLUMNS, 'RowBinary', [encodeSpanRowsRowBinary(withInput('p-compact', 20, megabyte))]);
    expect(await partTypes('p-compact')).toEqual([{ part_type: 'Compact' }]);
    // 150 MB: past 128 MiB.
    await storage.insertRows('spans', SPAN_COLUMNS, 'RowBinary', [encodeSpanRowsRowBinary(withInput('p-wide', 150, megabyte))]);
    expect(await partTypes('p-wide')).toEqual([{ part_type: 'Wide' }]);
  });

  it('has rows that end inside a row, or are not RowBinary at all, refused as the rows’ fault (parse)', async () => {
    const bytes = encodeSpanRowsRowBinary(agentSpanRows(1, 100, 5));
    for (const bad of [bytes.subarray(0, bytes.length - 5), Buffer.from(encodeSpanRows(agentSpanRows(1, 100, 5)))]) {
      const refused = await storage.insertRows('spans', SPAN_COLUMNS, 'RowBinary', [bad]).catch((e: unknown) => e);
      expect(rowsRefusal(refused)).toBe('parse');
    }
    expect(readdirSync(insertDirectory())).toEqual([]);
  });
});

/** Rows at the edges of each column's type, built on real normalized rows. */
function edgeRows(agent: SpanRow, other: SpanRow): SpanRow[] {
  const empty = Object.fromEntries(SPAN_COLUMNS.map((c) => [c, typeof agent[c] === 'string' ? '' : agent[c]])) as unknown as SpanRow;
  return [
    { ...empty, span_id: 'edge-empty', start_time: '1767607200.000000001', end_time: '1767607200.000000001', duration_ms: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: 0, time_to_first_token_ms: null, attributes: {}, attribute_refs: {}, resource_attributes: {}, dimensions: {}, quality_flags: [], masked_rules: [], log_record_fields: [] },
    {
      ...agent,
      span_id: 'edge-large',
      start_time: '4294967295.999999999',
      end_time: '4294967295.999999999',
      user_id: AWKWARD,
      input: AWKWARD.repeat(2_000),
      input_tokens: 2 ** 60,
      total_tokens: 2 ** 53 + 1, // not a double: stored as the double it rounds to, in both formats
      cost: -1.25,
      duration_ms: 0.000001,
      time_to_first_token_ms: -3.5,
      attributes: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key.${i}.${AWKWARD}`, `${AWKWARD}${i}`])),
      dimensions: { 'ключ': 'значение', '': '' },
      masked_rules: ['email', AWKWARD],
    },
    { ...other, span_id: 'edge-max', start_time: '1000000000.100000000', end_time: '1000000002.000000000', user_id: '東京 🙂', input_tokens: 2 ** 64 - 2048, total_tokens: 2 ** 63, cost: 1e-300, duration_ms: 123456.789012, time_to_first_token_ms: 0.1, attributes: { only: '' } },
  ];
}

/** The directory the service's storage writes its insert files to. */
function insertDirectory(): string {
  const memory = insertFileDirectory(path.join(dir, 'clickhouse'), dir);
  expect(existsSync(memory)).toBe(true);
  return memory;
}
