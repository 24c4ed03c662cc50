// Engine write benchmark (issue 21 part 3, issue 33): what one insert of span rows costs the
// embedded engine, by the path the rows take to it (chDB's raw insert, a file, RowBinary in
// a file), insert format, rows per insert, insert settings, codecs of the hot text columns
// and the skip indexes built at insert time. Every alternative writes the same
// realistic rows (bench/agent-spans.ts → decode → spanRowsFromExport, as the writer makes
// them) into a copy of `spans` of its own, the alternatives taking turns round after round.
// CPU is the whole process's (chDB's threads run in it). Prints figures; not a test.
// The table group (engine-table-variants.ts) prices each part of the spans table's definition.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { storageSettings } from '@aos/config';
import type { SpanRow } from '@aos/domain';
import { SPAN_COLUMNS, encodeSpanRows, encodeSpanRowsRowBinary, migrate, openStorage, type RowFormat, type Storage } from '@aos/storage';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { fileInsertSql, insertFileDirectory, tableStructure } from '../packages/storage/src/client/embedded-file-insert.ts';
import { rowInsertSettings } from '../packages/storage/src/client/row-insert-settings.ts';
import { cpuNow, median, realisticRows } from './engine-rows.ts';
import { encodeSpanRowsCsv } from './csv-rows.ts';
import { SPANS_VIEWS, codecAlters, tableVariants } from './engine-table-variants.ts';
import { encodeSpanRowsTsv } from './tsv-rows.ts';

/** Requests of 1,000 spans: the rows every alternative writes. */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Only the groups whose name matches (path, format, block, settings, codec, parse, index, table); all when unset. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const TODAY_BLOCK = 50_000;

type Block = string | Buffer;
const ENCODERS: Record<string, { format: RowFormat; encode: (rows: readonly SpanRow[]) => Block }> = {
  JSONCompactEachRow: { format: 'JSONCompactEachRow', encode: encodeSpanRows },
  TabSeparated: { format: 'TabSeparated', encode: encodeSpanRowsTsv },
  CSV: { format: 'CSV', encode: encodeSpanRowsCsv },
  // The production encoder (packages/storage/src/spans/span-rowbinary.ts).
  RowBinary: { format: 'RowBinary', encode: encodeSpanRowsRowBinary },
};

interface Variant {
  group: string;
  name: string;
  table: string;
  format: keyof typeof ENCODERS;
  block: number;
  /** Session settings in force for the insert (the embedded engine's session keeps SET). */
  settings?: Record<string, number>;
  /** A table engine other than spans' own: `Null` parses the rows and stores nothing. */
  engine?: 'Null';
  /** `inline`: chDB's raw insert (the payload inline with the statement), the embedded path before issue 33. */
  path?: 'inline';
  /** The materialized views on spans whose copies it feeds, as spans feeds them (none when absent). */
  views?: readonly SpansView[];
  /** Each insert with an insert_deduplication_token, as the writer's inserts into spans. */
  tokens?: boolean;
  /** The service's file insert with these settings in its statement over its own (fileInsertWith). */
  insertSettings?: Record<string, number>;
}

interface Sample {
  rowsPerSecond: number;
  cpuMicrosPerRow: number;
  mergeCpuMicrosPerRow: number;
  mergeSeconds: number;
}

function blocksOf(rows: readonly SpanRow[], size: number, encode: (rows: readonly SpanRow[]) => Block): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < rows.length; i += size) blocks.push(encode(rows.slice(i, i + size)));
  return blocks;
}

/** The JS cost of each encoder to the bytes ingest hands Redis (text to UTF-8 included), in turns: CPU µs per row and bytes per row. */
function encodeCosts(rows: readonly SpanRow[]) {
  const micros: Record<string, number[]> = {};
  const bytes: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, { encode }] of Object.entries(ENCODERS)) {
      const cpu0 = cpuNow();
      const encoded = encode(rows);
      const utf8 = typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
      (micros[name] ??= []).push((cpuNow() - cpu0) / rows.length);
      bytes[name] = utf8.length / rows.length;
    }
  }
  return Object.keys(ENCODERS).map((name) => ({ name, micros: median(micros[name]!), bytes: bytes[name]! }));
}

async function copyOfSpans(storage: Storage, table: string, alter: string[] = [], engine?: Variant['engine']) {
  await storage.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
  await storage.client.command({ query: `CREATE TABLE ${table} AS spans${engine ? ` ENGINE = ${engine}` : ''}` });
  for (const a of alter) await storage.client.command({ query: `ALTER TABLE ${table} ${a}` });
}

/** A materialized view on spans: its name, its SELECT, and the table it writes to. */
interface SpansView {
  name: string;
  select: string;
  target: string;
}

/** Every materialized view that reads spans, as the migrations made them. */
async function viewsOnSpans(storage: Storage): Promise<SpansView[]> {
  const result = await storage.client.query({
    query: "SELECT name, as_select, create_table_query FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name",
    format: 'JSONEachRow',
  });
  const views = await result.json<{ name: string; as_select: string; create_table_query: string }>();
  return views
    .filter((v) => /FROM (\w+\.)?spans\b/.test(v.as_select))
    .map((v) => {
      const target = /\bTO (?:\w+\.)?(\w+)/.exec(v.create_table_query)?.[1];
      if (!target) throw new Error(`${v.name} names no target table: ${v.create_table_query}`);
      return { name: v.name, select: v.as_select, target };
    });
}

/** Each view, copied onto `table` and feeding a copy of its target of its own, as spans feeds them. */
async function copyViews(storage: Storage, table: string, views: readonly SpansView[]) {
  for (const view of views) {
    const select = view.select.replace(/FROM (\w+\.)?spans\b/, `FROM ${table}`);
    await storage.client.command({ query: `CREATE TABLE ${table}__${view.target} AS ${view.target}` });
    await storage.client.command({ query: `CREATE MATERIALIZED VIEW ${table}__${view.name} TO ${table}__${view.target} AS ${select}` });
  }
}

async function dropCopies(storage: Storage, table: string, views: readonly SpansView[]) {
  for (const view of views) {
    for (const t of [`${table}__${view.name}`, `${table}__${view.target}`]) await storage.client.command({ query: `DROP TABLE IF EXISTS ${t}` });
  }
  await storage.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
}

async function setSession(storage: Storage, settings: Record<string, number> | undefined, reset: boolean) {
  for (const [name, value] of Object.entries(settings ?? {})) {
    await storage.client.command({ query: reset ? `SET ${name} = DEFAULT` : `SET ${name} = ${value}` });
  }
}

/** One timed write of every row into an emptied table, then the merge of its parts (OPTIMIZE … FINAL), timed apart. */
/** The engine as the bench reaches it beside Storage: chDB's own handle, and the directory of the service's insert files. */
interface RawEngine {
  raw: ChdbConnection;
  insertDirectory: string;
}

async function writeOnce(storage: Storage, { raw, insertDirectory }: RawEngine, variant: Variant, blocks: readonly Block[], rows: number, round: number): Promise<Sample> {
  if (!variant.engine) await storage.client.command({ query: `TRUNCATE TABLE ${variant.table}` });
  for (const view of variant.views ?? []) await storage.client.command({ query: `TRUNCATE TABLE IF EXISTS ${variant.table}__${view.target}` });
  await setSession(storage, variant.settings, false);
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const format = ENCODERS[variant.format]!.format;
  for (const [i, block] of blocks.entries()) {
    // Tokens unique to the round: the table keeps the last 10,000 (migration 0019) across TRUNCATE.
    const token = variant.tokens ? `${variant.table}:${round}:${i}` : undefined;
    if (variant.path === 'inline') await raw.chdb.rawInsert({ table: variant.table, columns: [...SPAN_COLUMNS], values: block, format: format as 'JSONCompactEachRow' });
    else if (variant.insertSettings) await fileInsertWith(raw, insertDirectory, variant.table, format, block, { ...rowInsertSettings(token), ...variant.insertSettings });
    else await storage.insertRows(variant.table, SPAN_COLUMNS, format, typeof block === 'string' ? block : [block], undefined, token);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuNow();
  await setSession(storage, variant.settings, true);
  const t1 = performance.now();
  if (!variant.engine) await storage.client.command({ query: `OPTIMIZE TABLE ${variant.table} FINAL` });
  return {
    rowsPerSecond: rows / seconds,
    cpuMicrosPerRow: (cpu1 - cpu0) / rows,
    mergeCpuMicrosPerRow: (cpuNow() - cpu1) / rows,
    mergeSeconds: (performance.now() - t1) / 1000,
  };
}

const structures = new Map<string, Promise<string>>();
let fileSequence = 0;

/**
 * The statement Storage.insertRows runs on the embedded engine (embedded-file-insert.ts), with
 * other settings: the same file, directory and statement, so only the settings differ.
 */
async function fileInsertWith(raw: ChdbConnection, directory: string, table: string, format: RowFormat, block: Block, settings: Record<string, string | number>) {
  const query = (sql: string, f: string) => raw.chdb.queryAsync(sql, { format: f });
  if (!structures.has(table)) structures.set(table, tableStructure(query, table, SPAN_COLUMNS));
  const file = path.join(directory, `bench-${++fileSequence}.${format}`);
  writeFileSync(file, block, { flag: 'wx', mode: 0o600 });
  try {
    await query(fileInsertSql({ table, columns: SPAN_COLUMNS, file, format, structure: await structures.get(table)!, settings }), 'TabSeparated');
  } finally {
    rmSync(file, { force: true });
  }
}

async function partBytes(storage: Storage, table: string): Promise<{ compressed: number; uncompressed: number }> {
  const result = await storage.client.query({
    query: `SELECT sum(data_compressed_bytes) AS c, sum(data_uncompressed_bytes) AS u FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
    query_params: { table },
    format: 'JSONEachRow',
  });
  const [r] = await result.json<{ c: string; u: string }>();
  return { compressed: Number(r?.c ?? 0), uncompressed: Number(r?.u ?? 0) };
}

/** The same rows, whatever format wrote them: a digest of every column of every row. */
async function contentDigest(storage: Storage, table: string): Promise<string> {
  const result = await storage.client.query({ query: `SELECT count() AS n, groupBitXor(cityHash64(${SPAN_COLUMNS.join(', ')})) AS h FROM ${table}`, format: 'JSONEachRow' });
  const [r] = await result.json<{ n: string; h: string }>();
  return `${r?.n}:${r?.h}`;
}

async function skipIndexes(storage: Storage): Promise<string[]> {
  const result = await storage.client.query({ query: "SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'spans' ORDER BY name", format: 'JSONEachRow' });
  return (await result.json<{ name: string }>()).map((r) => r.name);
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-engine-bench-'));
  const storage = await openStorage(storageSettings({ DATA_DIR: dataDir }));
  try {
    await migrate(storage);
    // A second handle on the same engine session, for chDB's raw insert (the path before issue 33).
    const raw = createChdbConnection({ path: path.join(dataDir, 'clickhouse') });
    const engine: RawEngine = { raw, insertDirectory: insertFileDirectory(path.join(dataDir, 'clickhouse'), dataDir) };
    const [{ d: database }] = (await (await storage.client.query({ query: 'SELECT currentDatabase() AS d', format: 'JSONEachRow' })).json<{ d: string }>()) as [{ d: string }];
    await raw.chdb.queryAsync(`USE ${database}`);
    const rows = realisticRows(REQUESTS, 900_000);
    console.log(`rows: ${rows.length} realistic span rows (${REQUESTS} requests of 1000), ${ROUNDS} rounds, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

    console.log('\nencode (JS, in our process, to UTF-8 bytes) | CPU µs/row | bytes/row');
    for (const e of encodeCosts(rows)) console.log(`${e.name} | ${e.micros.toFixed(2)} | ${e.bytes.toFixed(0)}`);

    const indexes = await skipIndexes(storage);
    const spansViews = await viewsOnSpans(storage);
    // A view added by a migration and missing from the table group would be priced in every variant but never alone.
    if (spansViews.map((v) => v.name).join() !== [...SPANS_VIEWS].sort().join()) throw new Error(`views on spans: ${spansViews.map((v) => v.name).join(', ')}; the table group knows ${SPANS_VIEWS.join(', ')}`);
    const variants: Array<Variant & { alter?: string[] }> = [
      // How the rows reach the engine: inline through chDB's raw insert (before), the same bytes through a file (now), RowBinary through a file.
      ...(['MergeTree', 'Null'] as const).flatMap((target) => {
        const engine = target === 'Null' ? ('Null' as const) : undefined;
        return [
          { group: 'path', name: `JSONCompactEachRow inline (raw insert) -> ${target}`, table: `w_path_inline_${target}`, format: 'JSONCompactEachRow', block: TODAY_BLOCK, path: 'inline' as const, engine },
          { group: 'path', name: `JSONCompactEachRow file -> ${target}`, table: `w_path_json_${target}`, format: 'JSONCompactEachRow', block: TODAY_BLOCK, engine },
          { group: 'path', name: `RowBinary file -> ${target}`, table: `w_path_rowbinary_${target}`, format: 'RowBinary', block: TODAY_BLOCK, engine },
        ];
      }),
      ...Object.keys(ENCODERS).map((format) => ({ group: 'format', name: format, table: `w_fmt_${format.toLowerCase()}`, format, block: TODAY_BLOCK })),
      ...[6_000, 20_000, 50_000, 100_000].map((block) => ({ group: 'block', name: `${block} rows/insert`, table: `w_block_${block}`, format: 'JSONCompactEachRow', block })),
      ...[
        ['defaults', undefined],
        ['input_format_parallel_parsing=0', { input_format_parallel_parsing: 0 }],
        ['max_insert_threads=2', { max_insert_threads: 2 }],
        ['min_insert_block_size_rows=1000000', { min_insert_block_size_rows: 1_000_000, min_insert_block_size_bytes: 0 }],
      ].map(([name, settings], i) => ({ group: 'settings', name: name as string, table: `w_set_${i}`, format: 'JSONCompactEachRow', block: TODAY_BLOCK, settings: settings as Record<string, number> | undefined })),
      ...['ZSTD(3)', 'ZSTD(1)', 'LZ4'].map((c, i) => ({ group: 'codec', name: `ZSTD(3) columns as ${c}`, table: `w_codec_${i}`, format: 'JSONCompactEachRow', block: TODAY_BLOCK, alter: codecAlters(c) })),
      // What the engine's parser alone costs: the same rows into a table that stores nothing.
      { group: 'parse', name: 'spans (MergeTree: parse, sort, compress, write)', table: 'w_parse_spans', format: 'JSONCompactEachRow', block: TODAY_BLOCK },
      { group: 'parse', name: 'parse only (Null engine)', table: 'w_parse_null', format: 'JSONCompactEachRow', block: TODAY_BLOCK, engine: 'Null' as const },
      { group: 'index', name: 'all skip indexes', table: 'w_idx_all', format: 'JSONCompactEachRow', block: TODAY_BLOCK },
      ...indexes.map((index) => ({ group: 'index', name: `without ${index}`, table: `w_idx_${index}`, format: 'JSONCompactEachRow', block: TODAY_BLOCK, alter: [`DROP INDEX ${index}`] })),
      { group: 'index', name: 'without any', table: 'w_idx_none', format: 'JSONCompactEachRow', block: TODAY_BLOCK, alter: indexes.map((i) => `DROP INDEX ${i}`) },
      // The production path (RowBinary through a file, with tokens) into the table as migrated, and each part of it taken away or changed.
      ...tableVariants(indexes).map((t, i) => ({ group: 'table', name: t.name, table: `w_table_${i}`, format: 'RowBinary', block: TODAY_BLOCK, alter: t.alter, settings: t.settings, tokens: true, views: spansViews.filter((view) => !t.withoutViews?.includes(view.name)), insertSettings: t.insertSettings })),
    ].filter((v) => !ONLY || ONLY.test(v.group));

    // Group by group, so each group's figures print as soon as its rounds are done.
    const blocks = new Map<string, Block[]>();
    for (const group of [...new Set(variants.map((v) => v.group))]) {
      const inGroup = variants.filter((v) => v.group === group);
      for (const v of inGroup) {
        await dropCopies(storage, v.table, spansViews);
        await copyOfSpans(storage, v.table, v.alter, v.engine);
        await copyViews(storage, v.table, v.views ?? []);
        const key = `${v.format}/${v.block}`;
        if (!blocks.has(key)) blocks.set(key, blocksOf(rows, v.block, ENCODERS[v.format]!.encode));
      }
      const samples = new Map<Variant, Sample[]>(inGroup.map((v) => [v, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of inGroup) samples.get(v)!.push(await writeOnce(storage, engine, v, blocks.get(`${v.format}/${v.block}`)!, rows.length, round));
      }
      if (group === 'format' || group === 'path') {
        const stored = inGroup.filter((v) => !v.engine);
        const digests = new Set(await Promise.all(stored.map((v) => contentDigest(storage, v.table))));
        console.log(`\n${group}s stored the same rows: ${digests.size === 1 ? 'yes' : `NO (${[...digests].join(' / ')})`}`);
      }
      console.log(`\n${group} | rows/s (median of ${ROUNDS}) | vs first | insert CPU µs/row | CPU vs first | merge (OPTIMIZE FINAL) CPU µs/row | merge s | compressed MiB`);
      const baseline = median(samples.get(inGroup[0]!)!.map((x) => x.rowsPerSecond));
      const cpuBaseline = (v: Variant) => median(samples.get(inGroup.find((b) => b.engine === v.engine)!)!.map((x) => x.cpuMicrosPerRow));
      for (const v of inGroup) {
        const s = samples.get(v)!;
        const rate = median(s.map((x) => x.rowsPerSecond));
        const { compressed } = await partBytes(storage, v.table);
        console.log(
          `${v.name} | ${Math.round(rate)} | ${(rate / baseline).toFixed(2)} | ${median(s.map((x) => x.cpuMicrosPerRow)).toFixed(1)} | ` +
            `${(median(s.map((x) => x.cpuMicrosPerRow)) / cpuBaseline(v)).toFixed(2)} | ` +
            `${median(s.map((x) => x.mergeCpuMicrosPerRow)).toFixed(1)} | ${median(s.map((x) => x.mergeSeconds)).toFixed(2)} | ${(compressed / 2 ** 20).toFixed(1)}`,
        );
        await dropCopies(storage, v.table, spansViews);
      }
    }
    console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
