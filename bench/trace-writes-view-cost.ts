// What the materialized view feeding trace_writes (migration 0025) adds to an insert of
// spans: the engine CPU of the process per span inserted, with the view attached and
// detached in turns, the rows generated inside the engine (writeSliceSql) so only the
// insert's own work is timed. 1M spans per insert.
//
//   node --import tsx bench/trace-writes-view-cost.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storageSettings } from '@aos/config';
import { migrate, openStorage } from '@aos/storage';
import { DAY, writeSliceSql } from './query-dataset.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aos-mv-cost-'));
const storage = await openStorage(storageSettings({ DATA_DIR: dir }));
await migrate(storage);
const now = Date.now();
const N = 25_000; // traces per project per slice: 1M spans
let from = 0;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
async function slice(): Promise<number> {
  const c0 = cpu();
  await writeSliceSql(storage, 'spans', { from, to: from + N, start: now - 7 * DAY, now });
  from += N;
  return cpu() - c0;
}
const withMv: number[] = [];
const without: number[] = [];
await slice(); // warm
for (let turn = 0; turn < 3; turn++) {
  withMv.push(await slice());
  await storage.client.command({ query: 'DETACH TABLE trace_writes_mv' });
  without.push(await slice());
  await storage.client.command({ query: 'ATTACH TABLE trace_writes_mv' });
}
const spans = N * 4 * 10;
const per = (xs: number[]) => xs.map((ms) => ((ms * 1000) / spans).toFixed(2)).join(', ');
console.log(`CPU µs per span inserted (engine generating the rows), with trace_writes_mv: ${per(withMv)}; without: ${per(without)}`);
await storage.close();
rmSync(dir, { recursive: true, force: true });
