// The SQLite adapter does not run a keep-the-newest prune (`DELETE FROM t WHERE c < ? OR k NOT IN (SELECT k FROM t
// ORDER BY c DESC LIMIT ?)`, the gateway's exec_seen prune) when a probe shows it would delete nothing: no row is older
// than the cutoff and the table holds no more rows than the limit. Whatever the rows (equal times included, where the
// LIMIT's choice at a tie is SQLite's), the cutoffs and the limits, each write's change count and every row must be
// what SQLite gives when it runs every statement; a plain sql.js database fed the same statements is the reference.
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { describe, expect, it } from 'vitest';
import type { SqlDatabase, SqlParams } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE seen(key TEXT PRIMARY KEY, seen_at INTEGER NOT NULL);';
const path = '/db/prune.db';
const prune = 'DELETE FROM seen WHERE seen_at < ? OR key NOT IN (SELECT key FROM seen ORDER BY seen_at DESC LIMIT ?)';
const state = 'SELECT key, seen_at FROM seen ORDER BY key';

interface Write {
  sql: string;
  params: SqlParams;
}

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 0, max: 4 })).map(([key, at]) => ({ sql: 'INSERT OR REPLACE INTO seen(key, seen_at) VALUES (?, ?)', params: [key, at] })),
  fc.tuple(fc.integer({ min: -1, max: 5 }), fc.integer({ min: 0, max: 5 })).map(([cutoff, limit]) => ({ sql: prune, params: [cutoff, limit] })),
  // Parameters the probe does not vouch for run as they are (a NULL cutoff, a negative limit: no limit).
  fc.constantFrom<Write>({ sql: prune, params: [null, 3] }, { sql: prune, params: [2, -1] }),
);

function reference(writes: readonly Write[]): { changes: number[]; rows: string[] } {
  const db: Database = new sql.Database();
  db.exec(schema);
  const changes: number[] = [];
  const rows: string[] = [];
  for (const write of writes) {
    db.run(write.sql, write.params as never);
    changes.push(db.getRowsModified());
    rows.push(JSON.stringify(db.exec(state)[0]?.values ?? []));
  }
  db.close();
  return { changes, rows };
}

async function throughAdapter(writes: readonly Write[]): Promise<{ changes: number[]; rows: string[]; skipped: number }> {
  const sim = makeSim(sql, 'skip-prune');
  const changes: number[] = [];
  const rows: string[] = [];
  sim.spawn('p', async (ctx) => {
    const db: SqlDatabase = await ctx.sqlite.open(path, schema);
    for (const write of writes) {
      changes.push((await db.run(write.sql, write.params)).changes);
      rows.push(JSON.stringify(sim.sqlite.inspect(path, state).map((row) => Object.values(row))));
    }
  });
  await sim.run();
  const skipped = sim.sqlite.stats.skippedDeletes;
  sim.dispose();
  return { changes, rows, skipped };
}

describe('a keep-the-newest prune that would delete nothing is skipped as if SQLite had run it', () => {
  it('change counts and rows equal a plain database that runs every statement', async () => {
    let skipped = 0;
    let deleting = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(writeArb, { minLength: 1, maxLength: 30 }), async (writes) => {
        const adapter = await throughAdapter(writes);
        const expected = reference(writes);
        skipped += adapter.skipped;
        deleting += writes.filter((write, index) => write.sql === prune && (expected.changes[index] ?? 0) > 0).length;
        expect({ changes: adapter.changes, rows: adapter.rows }).toEqual(expected);
      }),
      { numRuns: 150, seed: 25 },
    );
    // The property exercised the skip, and prunes that did delete (past the cutoff, past the limit).
    expect(skipped).toBeGreaterThan(0);
    expect(deleting).toBeGreaterThan(0);
  });

  it('runs a prune that deletes: a row past the cutoff, or more rows than the limit', async () => {
    const insert = (key: string, at: number): Write => ({ sql: 'INSERT INTO seen(key, seen_at) VALUES (?, ?)', params: [key, at] });
    const writes: Write[] = [insert('a', 1), insert('b', 2), { sql: prune, params: [0, 2] }, { sql: prune, params: [2, 2] }, insert('c', 3), insert('d', 3), { sql: prune, params: [0, 2] }];
    const adapter = await throughAdapter(writes);
    expect(adapter.changes).toEqual([1, 1, 0, 1, 1, 1, 1]);
    expect(adapter.skipped).toBe(1);
  });
});
