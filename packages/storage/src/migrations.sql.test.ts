// SQL snapshots of the statements the migration runner writes itself (the migration files
// are checked by migrations.test.ts). A changed snapshot is a changed statement: review the
// .sql and .params.json diffs as you would a hand-written query.
import { describe, it } from 'vitest';
import { durabilityChangeSql, durabilityTablesSql, schemaMigrationsTableSql } from './migrations.ts';
import { expectStatement } from './sql/expect-statement.ts';

describe('schemaMigrationsTableSql', () => {
  it('makes the table on one node', async () => {
    await expectStatement({ query: schemaMigrationsTableSql(undefined), params: {} }, 'migrations-table-single');
  });

  it('makes a replicated table on every node of the cluster', async () => {
    await expectStatement({ query: schemaMigrationsTableSql('aos_cluster'), params: {} }, 'migrations-table-cluster');
  });
});

describe('durabilityTablesSql', () => {
  it('finds the tables without both fsync settings for strict durability', async () => {
    await expectStatement(durabilityTablesSql(true), 'durability-tables-strict');
  });

  it('finds the tables with an fsync setting left for standard durability', async () => {
    await expectStatement(durabilityTablesSql(false), 'durability-tables-standard');
  });
});

describe('durabilityChangeSql', () => {
  it('sets both fsync settings, the table name quoted as an identifier', async () => {
    await expectStatement({ query: durabilityChangeSql('odd`name', true), params: {} }, 'durability-change-strict');
  });

  it('resets both fsync settings', async () => {
    await expectStatement({ query: durabilityChangeSql('spans', false), params: {} }, 'durability-change-standard');
  });
});
