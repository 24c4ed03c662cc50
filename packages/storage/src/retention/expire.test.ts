import { describe, expect, it } from 'vitest';
import { EXPIRING_TABLES, expirySteps } from './expire.ts';

const NOW = Date.UTC(2026, 10, 25, 12);
const CUTOFF = Date.UTC(2026, 9, 26, 12);

/** The steps as one text: each table's find and delete statements, in order. */
function script(cluster: string | undefined): string {
  return expirySteps(cluster, 'acme', CUTOFF, NOW)
    .map((s) => `-- ${s.table}\n${s.find.query};\n${s.delete.query};\n`)
    .join('\n');
}

describe('expirySteps', () => {
  it('binds every value it uses, the project and the times as parameters', () => {
    for (const step of expirySteps(undefined, 'acme', CUTOFF, NOW)) {
      for (const statement of [step.find, step.delete]) {
        const bound = [...statement.query.matchAll(/\{(\w+):[^}]+\}/g)].map((m) => m[1]!);
        expect(bound.filter((p) => !(p in statement.params))).toEqual([]);
        expect(statement.query).not.toContain('acme');
        expect(statement.params).toEqual({ projectId: 'acme', cutoff: (CUTOFF / 1000).toFixed(3), lookbackStart: NOW - 86_400_000 });
      }
    }
  });

  it('deletes the rows found through the spans before the spans, and orphaned flags after them', () => {
    const tables = expirySteps(undefined, 'acme', CUTOFF, NOW).map((s) => s.table);
    expect(tables.indexOf('scores')).toBeLessThan(tables.indexOf('spans'));
    expect(tables.indexOf('trace_flags')).toBeLessThan(tables.indexOf('spans'));
    expect(tables.lastIndexOf('trace_flags')).toBeGreaterThan(tables.indexOf('spans'));
    // An hour without writes is never due for a rollup: its write counts go first.
    expect(tables.indexOf('span_hour_writes')).toBeLessThan(tables.indexOf('trace_rollups'));
    // A trace's hours go after its spans: a read between the two finds every span still there.
    expect(tables.indexOf('trace_hours')).toBeGreaterThan(tables.indexOf('spans'));
    expect(tables.indexOf('trace_starts')).toBeGreaterThan(tables.indexOf('spans'));
    expect(tables).toHaveLength(EXPIRING_TABLES.length);
  });

  it('is the statements snapshotted beside it, on one node and on a cluster', async () => {
    await expect(script(undefined)).toMatchFileSnapshot('./__snapshots__/expiry-single.sql');
    await expect(script('aos_cluster')).toMatchFileSnapshot('./__snapshots__/expiry-cluster.sql');
  });
});
