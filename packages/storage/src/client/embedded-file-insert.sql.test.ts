// SQL snapshots of the embedded engine's file insert and of the column reads that plan it.
// A changed snapshot is a changed statement: review the .sql diffs as you would a
// hand-written query. The engine takes no bound parameters here, so the parameters are
// always none and the values are quoted in.
import { describe, expect, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { columnsProbeSql, fileInsertSql, tableColumnsSql } from './embedded-file-insert.ts';
import { rowInsertSettings } from './row-insert-settings.ts';

const INSERT = {
  table: 'scores',
  columns: ['project_id', 'id', 'value'],
  file: '/dev/shm/aos-inserts-0123456789abcdef/1.JSONCompactEachRow',
  format: 'JSONCompactEachRow',
  structure: "`project_id` String, `id` String, `value` Float64 DEFAULT 0",
};

describe('fileInsertSql', () => {
  it('reads the file into the columns with the table’s own types, with the row inserts’ settings', async () => {
    await expectStatement({ query: fileInsertSql({ ...INSERT, settings: rowInsertSettings() }), params: {} }, 'file-insert');
  });

  it('carries a deduplication token, quoted, when the insert has one', async () => {
    await expectStatement({ query: fileInsertSql({ ...INSERT, settings: rowInsertSettings("block-7'a") }), params: {} }, 'file-insert-token');
  });

  it('has no SETTINGS clause without settings', () => {
    expect(fileInsertSql({ ...INSERT, settings: {} })).not.toContain('SETTINGS');
  });
});

describe('tableColumnsSql', () => {
  it('reads the table’s columns, types and defaults, the name quoted', async () => {
    await expectStatement({ query: tableColumnsSql("span's"), params: {} }, 'file-insert-table-columns');
  });
});

describe('columnsProbeSql', () => {
  it('reads no rows of the columns', async () => {
    await expectStatement({ query: columnsProbeSql('scores', INSERT.columns), params: {} }, 'file-insert-columns-probe');
  });
});
