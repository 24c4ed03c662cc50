import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expirySteps, loadMigrations, openStorage, type Storage } from '@aos/storage';
import { storageSettingsForTest } from '../support/storage.ts';

// No ClickHouse cluster runs here, so the cluster variant's migrations are at least parsed
// by the engine itself (formatQuery parses a statement without running it).
let dir: string;
let storage: Storage;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-cluster-sql-'));
  storage = await openStorage(storageSettingsForTest(dir));
});
afterAll(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function parses(sql: string): Promise<string | null> {
  try {
    const result = await storage.client.query({ query: 'SELECT formatQuerySingleLine({sql:String}) AS f', query_params: { sql }, format: 'JSONEachRow' });
    await result.json();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('cluster migrations', () => {
  it('parse, statement by statement, with the cluster name in place', async () => {
    const statements = loadMigrations('cluster').flatMap((m) => m.statements.map((s) => [m.name, s.replaceAll('{cluster}', 'aos_cluster')] as const));
    expect(statements.length).toBeGreaterThan(0);
    for (const [name, sql] of statements) expect(await parses(sql), `${name}: ${sql.slice(0, 80)}`).toBeNull();
  });

  it('would catch a statement the engine cannot parse', async () => {
    expect(await parses('EXCHANGE TABLES spans_local AND ON CLUSTER aos_cluster')).toMatch(/Syntax error/);
  });

  it('are joined by retention deletes that parse too, reaching sharded tables through their _local tables ON CLUSTER', async () => {
    const steps = expirySteps('aos_cluster', 'acme', Date.now() - 86_400_000, Date.now());
    expect(steps.some((s) => s.delete.query.startsWith('DELETE FROM spans_local ON CLUSTER aos_cluster '))).toBe(true);
    for (const step of steps) expect(await parses(step.delete.query), step.delete.query).toBeNull();
  });
});
