// Idle polls (SimSqlite.idlePolls, src/idle-poll.ts): a poller whose polls would find nothing sleeps until one of
// the databases it watches changes (a commit that changed a row), or a due time passes, and resumes at the first
// instant of its poll schedule (start + k * interval, k >= 1) at or after that: where its next poll would first have
// seen the change. A write that changed nothing does not wake it; a change made before the wait began (after the
// version was read) wakes it at the first poll instant; a killed poller never resumes. A property holds the resume
// instant to a polling loop's first poll at or after the change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext, SqlDatabase } from '../../src/ports.ts';
import { watch } from '../../src/idle-poll.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE rows(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);';
const path = '/db/poll.db';
const intervalMs = 1_000;

/** The idle poller: it opens the database, reads its version, waits, and records when it resumed. */
async function waitOnce(ctx: ProcessContext, db: SqlDatabase, dueMs: number | undefined, resumed: number[]): Promise<void> {
  const watched = watch(db);
  expect(watched).toBeDefined();
  expect(ctx.sqlite.idlePolls).toBeDefined();
  await ctx.sqlite.idlePolls?.([watched!], intervalMs, dueMs);
  resumed.push(ctx.clock.nowMs());
}

/** A poller that starts waiting at startMs, and a writer that runs `write` at writeMs; returns when the poller resumed. */
async function resumeTimes(startMs: number, writeMs: number, write: (db: SqlDatabase) => Promise<unknown>, dueMs?: number, killAtMs?: number): Promise<number[]> {
  const sim = makeSim(sql, 'idle-polls');
  const resumed: number[] = [];
  sim.spawn('poller', async (ctx) => {
    const db = await ctx.sqlite.open(path, schema);
    await ctx.timers.sleep(Math.max(0, startMs - ctx.clock.nowMs()));
    await waitOnce(ctx, db, dueMs, resumed);
  });
  sim.spawn('writer', async (ctx) => {
    const db = await ctx.sqlite.open(path, schema);
    await ctx.timers.sleep(Math.max(0, writeMs - ctx.clock.nowMs()));
    await write(db);
  });
  if (killAtMs !== undefined) sim.at(killAtMs, () => sim.kill('poller'));
  await sim.run();
  sim.dispose();
  return resumed;
}

const insert = (db: SqlDatabase) => db.run('INSERT INTO rows(n) VALUES (1)');

describe('idle pollers', () => {
  it('resume at the first poll instant at or after a change', async () => {
    // Waiting from 100 ms; the insert commits at 2,500 ms plus its latency (0-2 ms): the poll at 3,100 sees it.
    expect(await resumeTimes(100, 2_500, insert)).toEqual([3_100]);
  });

  it('are not woken by a write that changed no row, only by the due time', async () => {
    expect(await resumeTimes(100, 2_500, (db) => db.run('DELETE FROM rows WHERE n < 0'), 7_050)).toEqual([7_100]);
    expect(await resumeTimes(100, 2_500, (db) => db.transaction((tx) => tx.run('UPDATE rows SET n = 2 WHERE n = 5')))).toEqual([]);
  });

  it('resume at the first poll instant when the change came between the read of the version and the wait', async () => {
    const sim = makeSim(sql, 'idle-polls-race');
    const waited: number[] = [];
    sim.spawn('poller', async (ctx) => {
      const db = await ctx.sqlite.open(path, schema);
      const watched = watch(db);
      // Another process commits while this one is busy for 500 ms after reading the version.
      await ctx.timers.sleep(500);
      const startMs = ctx.clock.nowMs();
      await ctx.sqlite.idlePolls?.([watched!], intervalMs, undefined);
      waited.push(ctx.clock.nowMs() - startMs);
    });
    sim.spawn('writer', async (ctx) => insert(await ctx.sqlite.open(path, schema)).then(() => undefined));
    await sim.run();
    sim.dispose();
    expect(waited).toEqual([intervalMs]);
  });

  it('never resume once killed', async () => {
    expect(await resumeTimes(100, 2_500, insert, undefined, 1_000)).toEqual([]);
  });

  it('resume where a polling loop would first have polled after the change', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 20_000 }), async (startMs, afterMs) => {
        const writeMs = startMs + afterMs;
        const [resumedAt] = await resumeTimes(startMs, writeMs, insert);
        // A loop that polls every intervalMs from startMs polls first at or after the commit (writeMs + 0-2 ms latency).
        const polls = (commitMs: number) => startMs + intervalMs * Math.max(1, Math.ceil((commitMs - startMs) / intervalMs));
        expect([polls(writeMs), polls(writeMs + 1), polls(writeMs + 2)]).toContain(resumedAt);
      }),
      { numRuns: 40, seed: 7 },
    );
  });
});
