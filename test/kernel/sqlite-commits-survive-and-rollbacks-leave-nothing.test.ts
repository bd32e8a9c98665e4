// SQLite in the simulation: a call executes at the instant it completes, and a transaction's body runs and commits
// atomically there. So a committed row survives a SIGKILL; a transaction whose owner dies before it completes, a
// body that throws, and a write refused by the busy fault all leave nothing behind; and a database can be exported
// to real `.db` bytes that sql.js reopens.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SqlDatabase, SqliteBusyError } from '../../src/ports.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema =
  'CREATE TABLE messages(id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT UNIQUE);';

function rows(sim: Simulation): { session_id: unknown; role: unknown; content: unknown }[] {
  return sim.sqlite
    .inspect('/db/state.db', 'SELECT session_id, role, content FROM messages ORDER BY id')
    .map(({ session_id, role, content }) => ({ session_id, role, content }));
}

/** Spawn p, open the database, and hand the handle to `withDb` (in p's incarnation). */
function spawnWithDb(sim: Simulation, withDb: (db: SqlDatabase) => Promise<void>): void {
  sim.spawn('p', async (ctx) => withDb(await ctx.sqlite.open('/db/state.db', schema)));
}

describe('committed transactions are durable', () => {
  it('keeps committed rows through a kill, and the next incarnation reads them', async () => {
    const sim = makeSim(sql, 'commit');
    const readBack: unknown[] = [];
    sim.spawn('p', async (ctx) => {
      const db = await ctx.sqlite.open('/db/state.db', schema);
      if (ctx.incarnation > 1) {
        readBack.push(...(await db.query('SELECT content FROM messages ORDER BY id')).map((row) => row.content));
        return;
      }
      await db.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'hello']);
      await db.transaction((tx) => {
        tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'assistant', 'hi']);
        tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'assistant', 'there']);
      });
      await ctx.timers.sleep(1_000_000);
    });
    sim.at(1_000, () => {
      sim.kill('p');
      sim.restart('p', 5);
    });
    await sim.run();
    expect(readBack).toEqual(['hello', 'hi', 'there']);
    expect(rows(sim)).toHaveLength(3);
    sim.dispose();
  });
});

describe('an incomplete transaction leaves no row', () => {
  it('a transaction whose owner is killed before it completes never runs its body', async () => {
    const sim = makeSim(sql, 'killed-mid-transaction');
    let handle: SqlDatabase | undefined;
    let bodyRan = false;
    let settled = false;
    spawnWithDb(sim, async (db) => {
      handle = db;
    });
    sim.at(100, () => {
      if (handle === undefined) throw new Error('database not open');
      // Issued by the live incarnation; its completion event is fenced by the kill right after.
      handle
        .transaction((tx) => {
          bodyRan = true;
          tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'lost']);
        })
        .then(
          () => (settled = true),
          () => (settled = true),
        );
      sim.kill('p');
    });
    await sim.run();
    expect(bodyRan).toBe(false);
    expect(settled).toBe(false);
    expect(rows(sim)).toEqual([]);
    expect(eventsOfKind(sim, 'sql.write')).toHaveLength(0);
    expect(sim.scheduler.fencedSteps).toBeGreaterThan(0);
    sim.dispose();
  });

  it('with a kill at a random instant, a multi-row transaction is all there or not there at all', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(12),
        async (seed, rowCount, killDelayMs) => {
          const sim = makeSim(sql, seed);
          sim.sqlite.faults = { ...sim.sqlite.faults, latencyMsMax: 10 };
          let handle: SqlDatabase | undefined;
          spawnWithDb(sim, async (db) => {
            handle = db;
          });
          sim.at(100, () => {
            void handle?.transaction((tx) => {
              for (let i = 0; i < rowCount; i++) {
                tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', `row ${i}`]);
              }
            });
          });
          sim.at(100 + killDelayMs, () => sim.kill('p'));
          await sim.run();
          const committed = eventsOfKind(sim, 'sql.write');
          expect(rows(sim)).toHaveLength(committed.length === 0 ? 0 : rowCount);
          expect(committed.length).toBeLessThanOrEqual(1);
          if (committed.length === 1) expect(committed[0]?.fields.changes).toBe(rowCount);
          sim.dispose();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a body that throws rolls back what it had written and rejects with its error', async () => {
    const sim = makeSim(sql, 'throwing-body');
    const outcome: string[] = [];
    spawnWithDb(sim, async (db) => {
      try {
        await db.transaction((tx) => {
          tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'rolled back']);
          throw new Error('model failure');
        });
        outcome.push('committed');
      } catch (error) {
        outcome.push(error instanceof Error ? error.message : 'non-error');
      }
      // A constraint violation half-way also rolls back the rows before it.
      await db.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'taken']);
      try {
        await db.transaction((tx) => {
          tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'first']);
          tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'taken']);
        });
        outcome.push('committed');
      } catch {
        outcome.push('constraint');
      }
      // The connection is usable afterwards: no transaction was left open.
      await db.transaction((tx) => {
        tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'assistant', 'after']);
      });
      outcome.push('after');
    });
    await sim.run();
    expect(outcome).toEqual(['model failure', 'constraint', 'after']);
    expect(rows(sim).map((row) => row.content)).toEqual(['taken', 'after']);
    expect(sim.processes.crashes).toEqual([]);
    sim.dispose();
  });
});

describe('the busy fault', () => {
  it('rejects writes with SqliteBusyError and applies nothing, while reads still work', async () => {
    const sim = makeSim(sql, 'busy');
    sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 1000 };
    const errors: unknown[] = [];
    let bodyRan = false;
    let readRows = -1;
    spawnWithDb(sim, async (db) => {
      await db
        .run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'x'])
        .catch((error: unknown) => {
          errors.push(error);
        });
      await db
        .transaction((tx) => {
          bodyRan = true;
          tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', 'y']);
        })
        .catch((error: unknown) => {
          errors.push(error);
        });
      readRows = (await db.query('SELECT * FROM messages')).length;
    });
    await sim.run();
    expect(errors).toHaveLength(2);
    for (const error of errors) expect(error).toBeInstanceOf(SqliteBusyError);
    expect(bodyRan).toBe(false);
    expect(readRows).toBe(0);
    expect(rows(sim)).toEqual([]);
    expect(eventsOfKind(sim, 'sql.busy')).toHaveLength(2);
    expect(eventsOfKind(sim, 'sql.write')).toHaveLength(0);
    sim.dispose();
  });

  it('at a partial rate, every write either commits once or is refused, and a retry goes through', async () => {
    const sim = makeSim(sql, 'busy-some');
    sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 300 };
    let refusals = 0;
    spawnWithDb(sim, async (db) => {
      for (let i = 0; i < 100; i++) {
        for (;;) {
          try {
            await db.transaction((tx) => {
              tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s', 'user', `m${i}`]);
            });
            break;
          } catch (error) {
            if (!(error instanceof SqliteBusyError)) throw error;
            refusals++;
          }
        }
      }
    });
    await sim.run();
    expect(rows(sim).map((row) => row.content)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
    expect(refusals).toBe(eventsOfKind(sim, 'sql.busy').length);
    expect(refusals).toBeGreaterThan(10);
    expect(sim.processes.crashes).toEqual([]);
    sim.dispose();
  });
});

describe('export', () => {
  it('gives .db bytes that sql.js reopens with the committed rows, and the engine keeps working after it', async () => {
    const sim = makeSim(sql, 'export');
    spawnWithDb(sim, async (db) => {
      await db.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s1', 'user', 'question']);
      await db.transaction((tx) => {
        tx.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s1', 'assistant', 'answer']);
      });
    });
    await sim.run();
    const bytes = sim.sqlite.export('/db/state.db');
    // The SQLite file header.
    expect(new TextDecoder().decode(bytes.slice(0, 15))).toBe('SQLite format 3');
    const reopened = new sql.Database(bytes);
    const result = reopened.exec('SELECT session_id, role, content FROM messages ORDER BY id');
    reopened.close();
    expect(result[0]?.values).toEqual([
      ['s1', 'user', 'question'],
      ['s1', 'assistant', 'answer'],
    ]);
    // Exporting must not disturb the live engine or its prepared statements.
    expect(rows(sim).map((row) => row.content)).toEqual(['question', 'answer']);
    sim.spawn('q', async (ctx) => {
      const db = await ctx.sqlite.open('/db/state.db', schema);
      await db.run('INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)', ['s1', 'user', 'later']);
    });
    await sim.run();
    expect(rows(sim).map((row) => row.content)).toEqual(['question', 'answer', 'later']);
    sim.dispose();
  });
});

describe('engine settings', () => {
  it('opens every database with journal_mode=MEMORY, including those made from a cached schema image', async () => {
    const sim = makeSim(sql, 'journal');
    const modes: unknown[] = [];
    sim.spawn('p', async (ctx) => {
      for (const path of ['/db/one.db', '/db/two.db']) {
        const db = await ctx.sqlite.open(path, schema);
        modes.push((await db.query('PRAGMA journal_mode'))[0]?.journal_mode);
      }
    });
    await sim.run();
    sim.dispose();
    expect(modes).toEqual(['memory', 'memory']);
  });
});
