// A killed incarnation's state is garbage at its death, not when its last waits fall due (issue 46: a chaos run with a
// real release kept every dead incarnation's module state, 60 to 90 MB each, until the run ended). Two holders outlive
// an incarnation: the scheduler's queue (its timers: Scheduler.releaseOwner drops each event's callback, the event
// still popped and fenced at its time) and a database's change waiters (an idle poll: Incarnation.holdUntilDeath lets
// go of its resume). Observed with a WeakRef to an object only the dead incarnation's frame holds, after a full GC.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { watch } from '../../src/idle-poll.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sql = await loadSqlJs();
const schema = 'CREATE TABLE rows(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);';

/** Runs a process whose state only what it waits on holds (a timer's callback, or its frame in an idle poll); kills it at 1 s; runs to 2 s. */
async function heldAfterDeath(wait: 'timer' | 'idle-poll'): Promise<{ held: boolean; resumed: boolean }> {
  // The run ends at 2 s (its time cap) with the dead incarnation's waits still queued.
  const sim = makeSim(sql, 'dead-incarnation', 2_000);
  let state: WeakRef<object> | undefined;
  let resumed = false;
  sim.spawn('waiter', async (ctx) => {
    const big = { bytes: new Uint8Array(1_000_000) };
    state = new WeakRef(big);
    if (wait === 'timer') {
      // A timer an hour away whose callback alone holds the state.
      ctx.timers.setTimer(3_600_000, () => {
        resumed = big.bytes.length > 0;
      });
      return;
    } else {
      const db = await ctx.sqlite.open('/db/a.db', schema);
      const watched = watch(db);
      await ctx.sqlite.idlePolls?.([watched!], 1_000, undefined);
    }
    resumed = big.bytes.length > 0;
  });
  sim.at(1_000, () => sim.kill('waiter'));
  await sim.run();
  // Let the process's own frames unwind, then collect.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  const held = state?.deref() !== undefined;
  sim.dispose();
  return { held, resumed };
}

describe('a dead incarnation', () => {
  it("leaves nothing held by its timers in the scheduler's queue", async () => {
    expect(await heldAfterDeath('timer')).toEqual({ held: false, resumed: false });
  });

  it("leaves nothing held by its idle poll in a database's change waiters", async () => {
    expect(await heldAfterDeath('idle-poll')).toEqual({ held: false, resumed: false });
  });
});
