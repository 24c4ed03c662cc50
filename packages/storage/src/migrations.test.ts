import { describe, expect, it } from 'vitest';
import { loadMigrations, splitStatements } from './migrations.ts';

describe('splitStatements', () => {
  it('splits at semicolons ending a line and drops comment lines', () => {
    const sql = [
      '-- header comment; with a semicolon',
      'CREATE TABLE a (x UInt8)',
      '  -- indented comment',
      'ENGINE = Memory;',
      '',
      'CREATE TABLE b (y UInt8) ENGINE = Memory;  ',
      'CREATE VIEW c AS SELECT 1',
    ].join('\n');
    expect(splitStatements(sql)).toEqual([
      'CREATE TABLE a (x UInt8)\nENGINE = Memory',
      'CREATE TABLE b (y UInt8) ENGINE = Memory',
      'CREATE VIEW c AS SELECT 1',
    ]);
  });

  it('does not split at a semicolon inside a line', () => {
    expect(splitStatements("SELECT 'a;b', 1;\nSELECT 2;")).toEqual(["SELECT 'a;b', 1", 'SELECT 2']);
  });

  it('handles CRLF line ends', () => {
    expect(splitStatements('SELECT 1;\r\n-- c\r\nSELECT 2;\r\n')).toEqual(['SELECT 1', 'SELECT 2']);
  });

  it('returns nothing for a file of comments and blank lines', () => {
    expect(splitStatements('-- only\n\n   \n-- comments\n')).toEqual([]);
  });
});

describe('loadMigrations', () => {
  const single = loadMigrations('single');
  const cluster = loadMigrations('cluster');

  it('orders the files by number', () => {
    expect(single.length).toBeGreaterThan(0);
    const numbers = single.map((m) => Number(m.name.slice(0, 4)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('has the same file names in both variants', () => {
    expect(cluster.map((m) => m.name)).toEqual(single.map((m) => m.name));
  });

  it('has only statements safe to run twice (CREATE … IF NOT EXISTS, ALTER … ADD … IF NOT EXISTS, MATERIALIZE COLUMN, a deduplication window or the wide-part threshold, counting into span_hour_writes, filling trace_hours, trace_starts and trace_writes, figures of hours without them, hours of flags without them, hashes of figures without them, a table rebuild, emptying the rollups the writer computes again from spans), with no comment left in them', () => {
    const ON_CLUSTER = String.raw`(?: ON CLUSTER \{cluster\})?`;
    for (const m of [...single, ...cluster]) {
      expect(m.statements.length, m.name).toBeGreaterThan(0);
      // A rebuild copies a table into a new one and exchanges the two. It runs again from
      // any point only if every table it creates was dropped first, if left by a run cut short.
      const droppedFirst = new Set<string>();
      const created = new Set<string>();
      for (const s of m.statements) {
        expect(s, m.name).not.toMatch(/^\s*--/m);
        const drop = new RegExp(String.raw`^DROP TABLE IF EXISTS (\w+)${ON_CLUSTER}(?: SYNC)?$`).exec(s);
        if (drop) {
          droppedFirst.add(drop[1]!);
          continue;
        }
        const create = /^CREATE TABLE (?!IF NOT EXISTS)(\w+)/.exec(s);
        if (create) {
          expect(droppedFirst, `${m.name}: ${create[1]} is created without being dropped first`).toContain(create[1]);
          created.add(create[1]!);
          continue;
        }
        const dropCopy = new RegExp(String.raw`^DROP TABLE (\w+)${ON_CLUSTER}(?: SYNC)?$`).exec(s);
        if (dropCopy) {
          expect(created, `${m.name}: drops ${dropCopy[1]}, which it did not create`).toContain(dropCopy[1]);
          continue;
        }
        const exchange = new RegExp(String.raw`^EXCHANGE TABLES (\w+) AND (\w+)${ON_CLUSTER}$`).exec(s);
        if (exchange) {
          expect(created, `${m.name}: exchanges with a table it did not create`).toContain(exchange[2]);
          continue;
        }
        if (created.size > 0 && /^INSERT INTO \w+\s/.test(s)) continue;
        // Derived from spans alone: emptied, they are computed again (and read from spans meanwhile).
        if (new RegExp(String.raw`^TRUNCATE TABLE IF EXISTS (trace_rollup_hours|trace_rollups|trace_rollups_local)${ON_CLUSTER}$`).test(s)) continue;
        // Hours of flags rows that have none: a second run finds none left.
        if (/^INSERT INTO trace_flags\s[\s\S]*\sWHERE start_hour = 0 AND /.test(s)) continue;
        // Hour figures of computations that have none: a second run finds none left.
        if (/^INSERT INTO trace_hour_figures\s[\s\S]*\sNOT IN \(SELECT project_id, hour, version FROM trace_hour_figures\)/.test(s)) continue;
        // Hashes of computations that have none (0024): a second run finds none left.
        if (/^INSERT INTO trace_hour_figures \(project_id, hour, version, hour_session_hashes, hour_user_hashes\)\s[\s\S]*\sNOT IN \(SELECT project_id, hour, version FROM trace_hour_figures WHERE notEmpty\(hour_session_hashes\) OR notEmpty\(hour_user_hashes\)\)/.test(s)) continue;
        expect(s, m.name).toMatch(/^(CREATE [A-Z ]*IF NOT EXISTS |ALTER TABLE \w+ (ON CLUSTER \{cluster\} )?(ADD (COLUMN|INDEX) IF NOT EXISTS |MATERIALIZE COLUMN \w+$|MODIFY SETTING ((non_)?replicated_deduplication_window|min_bytes_for_wide_part) = \d+$)|INSERT INTO (span_hour_writes|trace_hours|trace_starts|trace_writes)\s)/);
      }
    }
  });

  it('runs every cluster DDL statement ON CLUSTER {cluster}, and no single-node one', () => {
    // Data statements go through Distributed tables, which reach every shard themselves.
    for (const s of cluster.flatMap((m) => m.statements).filter((s) => !s.startsWith('INSERT'))) expect(s).toContain('ON CLUSTER {cluster}');
    for (const s of single.flatMap((m) => m.statements)) expect(s).not.toContain('{cluster}');
  });
});
