// The adapter reads a kept statement's column names once (sql.js would ask SQLite at every call); they change only with
// the schema, so a statement that may change it (an ALTER here), or a rollback that takes one back, makes the adapter
// read them again. A `SELECT *` answers with the columns the table has at that moment, as a new statement would.
import { describe, expect, it } from 'vitest';
import type { SqlRow } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);';

describe('a kept statement answers with the columns the schema has now', () => {
  it('after an ALTER, and after a rollback that takes one back', async () => {
    const sim = makeSim(sql, 'column-names');
    const seen: SqlRow[][] = [];
    sim.spawn('p', async (ctx) => {
      const db = await ctx.sqlite.open('/db/columns.db', schema);
      await db.run("INSERT INTO t(a) VALUES ('x')");
      seen.push(await db.query('SELECT * FROM t'));
      await db.run('ALTER TABLE t ADD COLUMN b TEXT');
      seen.push(await db.query('SELECT * FROM t'));
      await db
        .transaction((tx) => {
          tx.run('ALTER TABLE t ADD COLUMN c TEXT');
          seen.push(tx.query('SELECT * FROM t'));
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      seen.push(await db.query('SELECT * FROM t'));
    });
    await sim.run();
    sim.dispose();
    expect(seen).toEqual([[{ id: 1, a: 'x' }], [{ id: 1, a: 'x', b: null }], [{ id: 1, a: 'x', b: null, c: null }], [{ id: 1, a: 'x', b: null }]]);
  });
});
