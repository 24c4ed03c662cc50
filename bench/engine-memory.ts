// What the embedded engine holds in memory while it inserts a block of span rows and while it
// merges the parts, by the format of the parts (min_bytes_for_wide_part), for issue 33's peak
// RSS: sampled once a second in the ingest bench, most of the service's memory swings were
// the engine's inserts (~280 MiB each with wide parts) and merges (up to ~450 MiB at once).
// Every variant writes the same realistic rows as the writer does (RowBinary through a file,
// a deduplication token per insert, blocks of the writer's mean size) into a copy of spans
// (without its views, which hold little), merges stopped; then one OPTIMIZE … FINAL merges
// the parts. The variants take turns round after round. Memory is the engine's own count,
// polled every 5 ms on the read session while the write session works: an INSERT's
// peak_memory_usage (system.processes), a merge's memory_usage (system.merges: merges run on
// the engine's own threads). CPU is the whole process's. Prints figures; not a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { storageSettings } from '@aos/config';
import { SPAN_COLUMNS, encodeSpanRowsRowBinary, migrate, openStorage, type Storage } from '@aos/storage';
import { cpuNow, median, realisticRows } from './engine-rows.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 140);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The writer's mean block in the ingest bench (~14,000 rows). */
const BLOCK = Number(process.env.BENCH_BLOCK ?? 14_000);
const MiB = 2 ** 20;

interface Variant {
  name: string;
  alter: string[];
}

const VARIANTS: Variant[] = [
  { name: 'wide parts from 10 MiB (the engine default, before migration 0026)', alter: [`MODIFY SETTING min_bytes_for_wide_part = ${10 * MiB}`] },
  { name: 'spans as migrated (compact parts up to 128 MiB)', alter: [] },
  { name: 'compact parts up to 1 GiB', alter: [`MODIFY SETTING min_bytes_for_wide_part = ${1024 * MiB}`] },
];

async function run(storage: Storage, sql: string): Promise<void> {
  await storage.client.command({ query: sql });
}

async function rowsOf<T>(storage: Storage, sql: string): Promise<T[]> {
  return (await storage.client.query({ query: sql, format: 'JSONEachRow' })).json<T>();
}

/** What an insert holds: the highest peak_memory_usage of a running INSERT statement. */
const INSERT_PROBE = "SELECT max(peak_memory_usage) AS m FROM system.processes WHERE query LIKE 'INSERT INTO%'";
/** What a merge holds: a merge runs on the engine's merge threads, not as its statement, so its memory is read from system.merges. */
const mergeProbe = (table: string) => `SELECT max(memory_usage) AS m FROM system.merges WHERE database = currentDatabase() AND table = '${table}'`;

/**
 * Runs `statement` while polling `probe` (one row, `m` bytes) every 5 ms: the highest value
 * seen. The poll runs on the read session, the statement on the write session, so the two
 * run side by side.
 */
async function peakWhile(storage: Storage, probe: string, statement: () => Promise<void>): Promise<number> {
  let peak = 0;
  let done = false;
  const poll = (async () => {
    while (!done) {
      const [r] = await rowsOf<{ m: string }>(storage, probe);
      peak = Math.max(peak, Number(r?.m ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await statement();
  } finally {
    done = true;
    await poll;
  }
  return peak;
}

/** The formats of the table's active parts, joined by '+' (Compact, Wide). */
async function partTypes(storage: Storage, table: string): Promise<string> {
  const [r] = await rowsOf<{ t: string }>(storage, `SELECT arrayStringConcat(groupUniqArray(part_type), '+') AS t FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`);
  return r?.t ?? '';
}

interface Sample {
  insertPeak: number;
  insertCpu: number;
  mergePeak: number;
  mergeCpu: number;
  partTypes: string;
}

async function writeOnce(storage: Storage, table: string, blocks: readonly Buffer[], rows: number, round: number): Promise<Sample> {
  await run(storage, `TRUNCATE TABLE ${table}`);
  await run(storage, `SYSTEM STOP MERGES ${table}`);
  let insertPeak = 0;
  const cpu0 = cpuNow();
  for (const [i, block] of blocks.entries()) {
    const peak = await peakWhile(storage, INSERT_PROBE, () => storage.insertRows(table, SPAN_COLUMNS, 'RowBinary', [block], undefined, `${table}:${round}:${i}`));
    insertPeak = Math.max(insertPeak, peak);
  }
  const insertCpu = (cpuNow() - cpu0) / rows;
  const inserted = await partTypes(storage, table);
  await run(storage, `SYSTEM START MERGES ${table}`);
  const cpu1 = cpuNow();
  const mergePeak = await peakWhile(storage, mergeProbe(table), () => run(storage, `OPTIMIZE TABLE ${table} FINAL`));
  const mergeCpu = (cpuNow() - cpu1) / rows;
  return { insertPeak, insertCpu, mergePeak, mergeCpu, partTypes: `${inserted} -> ${await partTypes(storage, table)}` };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-engine-memory-'));
  const storage = await openStorage(storageSettings({ DATA_DIR: dataDir }));
  try {
    await migrate(storage);
    const rows = realisticRows(REQUESTS, 700_000);
    const blocks: Buffer[] = [];
    for (let i = 0; i < rows.length; i += BLOCK) blocks.push(encodeSpanRowsRowBinary(rows.slice(i, i + BLOCK)));
    console.log(`rows: ${rows.length} in ${blocks.length} blocks of ${BLOCK}, ${ROUNDS} rounds, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const [i, v] of VARIANTS.entries()) {
      await run(storage, `DROP TABLE IF EXISTS m_${i}`);
      await run(storage, `CREATE TABLE m_${i} AS spans`);
      for (const a of v.alter) await run(storage, `ALTER TABLE m_${i} ${a}`);
    }
    const samples = VARIANTS.map(() => [] as Sample[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i] of VARIANTS.entries()) samples[i]!.push(await writeOnce(storage, `m_${i}`, blocks, rows.length, round));
    }
    console.log('\nvariant | inserted parts | insert peak MiB | insert CPU µs/row | merge (OPTIMIZE FINAL) peak MiB | merge CPU µs/row');
    for (const [i, v] of VARIANTS.entries()) {
      const s = samples[i]!;
      const m = (f: (x: Sample) => number) => median(s.map(f));
      console.log(`${v.name} | ${s[0]!.partTypes} | ${(m((x) => x.insertPeak) / MiB).toFixed(0)} | ${m((x) => x.insertCpu).toFixed(1)} | ${(m((x) => x.mergePeak) / MiB).toFixed(0)} | ${m((x) => x.mergeCpu).toFixed(1)}`);
    }
    console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
