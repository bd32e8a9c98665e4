// The SQLite adapter's read cache: an autocommit read is answered from the cache only while its database is
// unchanged, so every read returns what SQLite itself would. A write (or a transaction) that changes a row makes the
// next read go to SQLite; a write that changed nothing keeps the cache; a transaction sees its own writes; each caller
// gets its own row objects. A property checks a random mix of reads and writes against a cache-free reading.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE rows(id INTEGER PRIMARY KEY, status TEXT NOT NULL, n INTEGER NOT NULL);';
const pending = "SELECT id, n FROM rows WHERE status = 'pending' ORDER BY id";
const byN = 'SELECT id, status FROM rows WHERE n = ? ORDER BY id';

type Op = { kind: 'insert'; n: number } | { kind: 'complete'; n: number } | { kind: 'noop-delete' } | { kind: 'tx-bump' } | { kind: 'read' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), n: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('complete' as const), n: fc.integer({ min: 0, max: 5 }) }),
  fc.constant({ kind: 'noop-delete' as const }),
  fc.constant({ kind: 'tx-bump' as const }),
  fc.constant({ kind: 'read' as const }),
);

async function apply(db: SqlDatabase, op: Op): Promise<void> {
  if (op.kind === 'insert') await db.run("INSERT INTO rows(status, n) VALUES ('pending', ?)", [op.n]);
  else if (op.kind === 'complete') await db.run("UPDATE rows SET status = 'done' WHERE n = ? AND status = 'pending'", [op.n]);
  else if (op.kind === 'noop-delete') await db.run('DELETE FROM rows WHERE n < 0');
  else if (op.kind === 'tx-bump') await db.transaction((tx) => tx.run("UPDATE rows SET n = n + 1 WHERE status = 'pending'"));
}

describe('the read cache answers as SQLite would', () => {
  it('every read equals a cache-free read of the committed state, whatever the mix of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const sim = makeSim(sql, 'read-cache');
        const mismatches: string[] = [];
        sim.spawn('p', async (ctx) => {
          const db = await ctx.sqlite.open('/db/cache.db', schema);
          for (const op of ops) {
            await apply(db, op);
            // The parameterless read and a read with each of a few parameter values (the cache keys on them), read
            // directly first (inspect invalidates the cache), then twice through the cache: the second round is answered
            // from it.
            const reads = [[], [0], [1], [2]].map((params) => ({ params, sql: params.length === 0 ? pending : byN }));
            const direct = reads.map((read) => JSON.stringify(sim.sqlite.inspect('/db/cache.db', read.sql, read.params)));
            for (let round = 0; round < 2; round++) {
              for (const [i, read] of reads.entries()) {
                const cached = JSON.stringify(await db.query(read.sql, read.params));
                if (cached !== direct[i]) mismatches.push(`${JSON.stringify(op)} ${JSON.stringify(read.params)}: ${cached} != ${direct[i]}`);
              }
            }
          }
        });
        await sim.run();
        sim.dispose();
        expect(mismatches).toEqual([]);
      }),
      { numRuns: 60, seed: 13 },
    );
  });

  it('a write that changed nothing keeps the cache; one that changed a row does not; callers get copies', async () => {
    const sim = makeSim(sql, 'read-cache-counts');
    const seen: unknown[] = [];
    sim.spawn('p', async (ctx) => {
      const db = await ctx.sqlite.open('/db/cache.db', schema);
      await db.run("INSERT INTO rows(status, n) VALUES ('pending', 1)");
      const first = await db.query(pending);
      (first[0] as { n: unknown }).n = 99;
      seen.push((await db.query(pending))[0]?.n);
      await db.run('DELETE FROM rows WHERE n < 0');
      seen.push((await db.query(pending))[0]?.n);
      await db.run("UPDATE rows SET n = 2 WHERE status = 'pending'");
      seen.push((await db.query(pending))[0]?.n);
    });
    const before = { ...sim.sqlite.stats };
    await sim.run();
    expect(seen).toEqual([1, 1, 2]);
    // Four reads: the first and the last went to SQLite, the two between were answered from the cache.
    expect(sim.sqlite.stats.cachedReads - before.cachedReads).toBe(2);
    sim.dispose();
  });

  it('a write made through inspect (another writer, as a test sabotage is) is seen by the next read', async () => {
    const sim = makeSim(sql, 'read-cache-inspect');
    const seen: number[] = [];
    sim.spawn('p', async (ctx) => {
      const db = await ctx.sqlite.open('/db/cache.db', schema);
      await db.run("INSERT INTO rows(status, n) VALUES ('pending', 1)");
      seen.push((await db.query(pending)).length);
      sim.sqlite.inspect('/db/cache.db', "INSERT INTO rows(status, n) VALUES ('pending', 2)");
      seen.push((await db.query(pending)).length);
    });
    await sim.run();
    sim.dispose();
    expect(seen).toEqual([1, 2]);
  });
});

