// What judging traces for flags costs (the writer's flags pass): the query bench's traces
// (10 spans each, 4 projects, over the 7 days before now) written into a fresh store, then
// one pass judging all of them, with the time of each kind of statement it sent.
//
//   FLAGS_TRACES=20000 node --import tsx bench/flags-profile.ts   (traces per project)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { storageSettings, writerSettings } from '@aos/config';
import { migrate, openStorage } from '@aos/storage';
import { createDueCursor, runTraceFlagsPass } from '@aos/writer';
import { DAY, PROJECTS, SPANS_PER_TRACE, writeSliceSql } from './query-dataset.ts';

const TRACES = Number(process.env.FLAGS_TRACES ?? 20_000);

/** Which statement of the pass a SQL text is, by the table and shape it reads. */
function kindOf(sql: string): string {
  if (sql.includes('FROM trace_writes')) return 'due search';
  if (sql.includes('ORDER BY trace_id, start_time')) return 'load: spans';
  if (sql.includes('GROUP BY trace_id') && sql.includes('FROM spans FINAL')) return 'load: costs';
  if (sql.includes('SELECT trace_id, flags FROM trace_flags')) return 'flags before';
  if (sql.includes('quantileExact')) return 'cost statistics';
  return sql.trim().split(/\s+/).slice(0, 6).join(' ');
}

/** Times every query and insert the client is sent, by kind (bench-only: replaces the instance's methods). */
function timeStatements(client: ClickHouseClient) {
  const totals = new Map<string, { calls: number; ms: number }>();
  const add = (kind: string, ms: number) => {
    const t = totals.get(kind) ?? { calls: 0, ms: 0 };
    t.calls += 1;
    t.ms += ms;
    totals.set(kind, t);
  };
  const query = client.query.bind(client);
  const insert = client.insert.bind(client);
  client.query = (async (params: Parameters<ClickHouseClient['query']>[0]) => {
    const t0 = performance.now();
    const result = await query(params);
    add(kindOf(params.query), performance.now() - t0);
    return result;
  }) as ClickHouseClient['query'];
  client.insert = (async (params: Parameters<ClickHouseClient['insert']>[0]) => {
    const t0 = performance.now();
    const result = await insert(params);
    add(`insert ${params.table}`, performance.now() - t0);
    return result;
  }) as ClickHouseClient['insert'];
  return totals;
}

const dir = mkdtempSync(path.join(tmpdir(), 'aos-flags-profile-'));
const storage = await openStorage(storageSettings({ DATA_DIR: dir }));
try {
  await migrate(storage);
  const now = Date.now();
  const t0 = performance.now();
  await writeSliceSql(storage, 'spans', { from: 0, to: TRACES, start: now - 7 * DAY, now });
  const traces = TRACES * PROJECTS;
  console.log(`wrote ${traces} traces (${traces * SPANS_PER_TRACE} spans) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const totals = timeStatements(storage.client);
  const started = performance.now();
  const result = await runTraceFlagsPass(storage, {
    rules: writerSettings({}).traceFlagRules,
    quietMs: 0,
    cursor: createDueCursor(),
    budgetMs: Number.MAX_SAFE_INTEGER,
  });
  const wallMs = performance.now() - started;
  console.log(`one pass: ${result.traces} traces judged (${result.flagged} flagged) by ${result.searches} searches in ${(wallMs / 1000).toFixed(2)} s`
    + ` = ${Math.round(result.traces / (wallMs / 1000))} traces/s, ${((wallMs / result.traces) * 1000).toFixed(1)} µs per trace`);
  console.log('| statement | calls | ms in all | µs per trace judged | share of the pass |');
  for (const [kind, t] of [...totals].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`| ${kind} | ${t.calls} | ${t.ms.toFixed(0)} | ${((t.ms / result.traces) * 1000).toFixed(1)} | ${((t.ms / wallMs) * 100).toFixed(0)} % |`);
  }
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
