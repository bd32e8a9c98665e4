// The SQLite adapter reuses the databases of disposed simulations (emptied back to their schema) instead of opening
// new ones. A reused database must be indistinguishable from a new one: no rows, rowids and AUTOINCREMENT ids from 1.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema =
  'CREATE TABLE plain(id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE counted(id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT); CREATE INDEX plain_v ON plain(v);';

async function oneRun(seed: string, inserts: number): Promise<{ before: unknown[]; ids: number[] }> {
  const sim = makeSim(sql, seed);
  const out = { before: [] as unknown[], ids: [] as number[] };
  sim.spawn('p', async (ctx) => {
    const db = await ctx.sqlite.open('/db/reuse.db', schema);
    out.before = await db.query("SELECT (SELECT COUNT(*) FROM plain) AS plain, (SELECT COUNT(*) FROM counted) AS counted, (SELECT COUNT(*) FROM sqlite_sequence) AS sequences");
    for (let i = 0; i < inserts; i++) {
      out.ids.push((await db.run('INSERT INTO plain(v) VALUES (?)', [`v${i}`])).lastInsertRowId);
      out.ids.push((await db.run('INSERT INTO counted(v) VALUES (?)', [`v${i}`])).lastInsertRowId);
    }
  });
  await sim.run();
  sim.dispose();
  return out;
}

describe('a reused database starts as a new one', () => {
  it('has no rows and numbers rows from 1 again', async () => {
    const first = await oneRun('reuse-1', 3);
    const second = await oneRun('reuse-2', 2);
    expect(first.before).toEqual([{ plain: 0, counted: 0, sequences: 0 }]);
    expect(second.before).toEqual([{ plain: 0, counted: 0, sequences: 0 }]);
    expect(first.ids).toEqual([1, 1, 2, 2, 3, 3]);
    expect(second.ids).toEqual([1, 1, 2, 2]);
  });
});
