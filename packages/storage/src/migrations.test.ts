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

  it('has only statements safe to run twice (CREATE … IF NOT EXISTS, ALTER … ADD … IF NOT EXISTS, MATERIALIZE COLUMN, counting into span_hour_writes), with no comment left in them', () => {
    for (const m of [...single, ...cluster]) {
      expect(m.statements.length, m.name).toBeGreaterThan(0);
      for (const s of m.statements) {
        expect(s, m.name).toMatch(/^(CREATE [A-Z ]*IF NOT EXISTS |ALTER TABLE \w+ (ON CLUSTER \{cluster\} )?(ADD (COLUMN|INDEX) IF NOT EXISTS |MATERIALIZE COLUMN \w+$)|INSERT INTO span_hour_writes\s)/);
        expect(s, m.name).not.toMatch(/^\s*--/m);
      }
    }
  });

  it('runs every cluster DDL statement ON CLUSTER {cluster}, and no single-node one', () => {
    // Data statements go through Distributed tables, which reach every shard themselves.
    for (const s of cluster.flatMap((m) => m.statements).filter((s) => !s.startsWith('INSERT'))) expect(s).toContain('ON CLUSTER {cluster}');
    for (const s of single.flatMap((m) => m.statements)) expect(s).not.toContain('{cluster}');
  });
});
