// SQL snapshots of the statements the connection writes itself: the database it makes, the
// embedded session's settings, the server's insert. A changed snapshot is a changed
// statement: review the .sql diffs as you would a hand-written query. None binds parameters.
import { describe, it } from 'vitest';
import { expectStatement } from '../sql/expect-statement.ts';
import { createDatabaseSql, embeddedSessionSql, serverInsertSql } from './client.ts';

describe('createDatabaseSql', () => {
  it('makes the database on one node', async () => {
    await expectStatement({ query: createDatabaseSql('aos', undefined), params: {} }, 'create-database-single');
  });

  it('makes the database on every node of the cluster', async () => {
    await expectStatement({ query: createDatabaseSql('aos', 'aos_cluster'), params: {} }, 'create-database-cluster');
  });
});

describe('embeddedSessionSql', () => {
  it('sets the session settings and the write settings, one statement a setting', async () => {
    await expectStatement({ query: embeddedSessionSql().join(';\n'), params: {} }, 'embedded-session');
  });
});

describe('serverInsertSql', () => {
  it('names the table, the columns and the format of the rows that follow', async () => {
    await expectStatement({ query: serverInsertSql('spans', ['project_id', 'trace_id', 'span_id'], 'JSONCompactEachRow'), params: {} }, 'server-insert');
  });
});
