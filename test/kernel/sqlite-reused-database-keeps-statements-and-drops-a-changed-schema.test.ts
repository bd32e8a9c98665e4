// A reused database keeps its prepared statements across runs (sql.js's prepare was a share of every run), and the
// statements answer as new ones would: reset, bindings cleared, rows of the new run only. A database whose schema a
// run changed (here a trigger, as a test's sabotage may add) is closed rather than handed to the next run.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL); CREATE TABLE audit(id INTEGER PRIMARY KEY, what TEXT);';

async function oneRun(seed: string, bodies: string[], sabotage: boolean): Promise<{ rows: unknown[]; audit: unknown[]; triggers: unknown[] }> {
  const sim = makeSim(sql, seed);
  const out = { rows: [] as unknown[], audit: [] as unknown[], triggers: [] as unknown[] };
  sim.spawn('p', async (ctx) => {
    const db = await ctx.sqlite.open('/db/kept.db', schema);
    out.triggers = await db.query("SELECT name FROM sqlite_master WHERE type = 'trigger'");
    if (sabotage) await db.run("CREATE TRIGGER copy AFTER INSERT ON notes BEGIN INSERT INTO audit(what) VALUES (NEW.body); END");
    for (const body of bodies) await db.transaction((tx) => tx.run('INSERT INTO notes(body) VALUES (?)', [body]));
    out.rows = await db.query('SELECT id, body FROM notes WHERE body != ? ORDER BY id', ['']);
    out.audit = await db.query('SELECT what FROM audit ORDER BY id');
  });
  await sim.run();
  sim.dispose();
  return out;
}

describe('a reused database keeps its statements and drops a changed schema', () => {
  it('answers the same statements with the new run rows only', async () => {
    await oneRun('kept-1', ['a', 'b', 'c'], false);
    const second = await oneRun('kept-2', ['d'], false);
    expect(second.rows).toEqual([{ id: 1, body: 'd' }]);
    expect(second.audit).toEqual([]);
  });

  it('does not hand a database whose schema a run changed to the next run', async () => {
    const sabotaged = await oneRun('kept-3', ['x', 'y'], true);
    expect(sabotaged.audit).toEqual([{ what: 'x' }, { what: 'y' }]);
    const next = await oneRun('kept-4', ['z'], false);
    expect(next.triggers).toEqual([]);
    expect(next.rows).toEqual([{ id: 1, body: 'z' }]);
    expect(next.audit).toEqual([]);
  });
});
