// OpenClaw's session write lock (src/session-write-lock.ts): a lock file created exclusively with the holder's pid.
// A contender waits while the holder is alive and fails after 10 s ("session_busy"); once the holder is dead (a
// SIGKILL leaves its lock file behind) the file is stale and the contender reclaims it. Contenders that find one dead
// holder's lock together reclaim it under a claim, so they never both hold it; OpenClaw 2026.4.24's unguarded reclaim
// lets the later remove take the lock the earlier reclaimer created (fuzz --all seed 202).
import { describe, expect, it } from 'vitest';
import { acquireSessionWriteLock, type LockReclaimMode, lockPathOf, SessionWriteLockError, sessionWriteLockTimeoutMs } from '../../../src/session-write-lock.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { Simulation } from '../../../sim/kernel/simulation.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const file = '/data/sessions/s.jsonl';

/** A process `holder` that takes the lock at once and keeps it; killed at killAtMs when given. */
function holder(killAtMs?: number) {
  return (sim: Simulation): void => {
    sim.spawn('holder', async (ctx) => {
      await acquireSessionWriteLock(ctx, file);
      await ctx.timers.sleep(3_600_000);
    });
    if (killAtMs !== undefined) sim.at(killAtMs, () => void sim.kill('holder'));
  };
}

describe("OpenClaw's session write lock", () => {
  it('waits while the holder lives and fails after its timeout', async () => {
    const { value, sim } = await inProcess(
      sql,
      'lock-live',
      async (ctx) => {
        await ctx.timers.sleep(500);
        const startedAtMs = ctx.clock.nowMs();
        try {
          await acquireSessionWriteLock(ctx, file);
          return 'acquired';
        } catch (error) {
          expect(error).toBeInstanceOf(SessionWriteLockError);
          return ctx.clock.nowMs() - startedAtMs;
        }
      },
      { prepare: holder() },
    );
    expect(value).toBeGreaterThanOrEqual(sessionWriteLockTimeoutMs);
    expect(sim.disk.peek(lockPathOf(file))).toContain('"pid"');
  });

  it('reclaims the lock of a holder that died, and releases it', async () => {
    const { value, sim } = await inProcess(
      sql,
      'lock-dead',
      async (ctx) => {
        await ctx.timers.sleep(500);
        const lock = await acquireSessionWriteLock(ctx, file);
        const tookAtMs = ctx.clock.nowMs();
        await lock.release();
        return tookAtMs;
      },
      { prepare: holder(3_000) },
    );
    expect(value).toBeGreaterThanOrEqual(3_000);
    expect(value).toBeLessThan(3_000 + 1_100);
    expect(sim.trace.events.filter((event) => event.kind === 'model.session-lock-reclaimed')).toHaveLength(1);
    expect(sim.disk.peek(lockPathOf(file))).toBeUndefined();
  });

  /**
   * Three contenders wait on a holder killed at 3 s (one contender killed a few ms later, mid-reclaim in some seeds);
   * each takes the lock three times, holding it 3 ms. How many of `seeds` runs had two contenders holding at once.
   */
  async function contendedRuns(reclaim: LockReclaimMode, seeds: number): Promise<{ overlapping: number; acquired: number }> {
    let overlapping = 0;
    let acquired = 0;
    for (let i = 0; i < seeds; i++) {
      const sim = new Simulation({ seed: `lock-race-${i}`, sql, simTimeMsMax: 100_000 });
      const holding = new Set<string>();
      let overlap = false;
      holder(3_000)(sim);
      sim.at(3_000 + (i % 6), () => void sim.kill('a'));
      for (const name of ['a', 'b', 'c']) {
        sim.spawn(name, async (ctx) => {
          await ctx.timers.sleep(400 + (i % 7));
          for (let k = 0; k < 3; k++) {
            const lock = await acquireSessionWriteLock(ctx, file, { reclaim });
            acquired++;
            holding.add(name);
            if (holding.size > 1) overlap = true;
            await ctx.timers.sleep(3);
            holding.delete(name);
            await lock.release();
          }
        });
      }
      try {
        await sim.run();
        expect(sim.processes.crashes).toEqual([]);
      } finally {
        sim.dispose();
      }
      if (overlap) overlapping++;
    }
    return { overlapping, acquired };
  }

  it('lets one contender at a time reclaim a dead holder’s lock (claimed), where the release’s unguarded reclaim lets two hold it', async () => {
    const claimed = await contendedRuns('claimed', 100);
    expect(claimed.overlapping).toBe(0);
    expect(claimed.acquired).toBeGreaterThanOrEqual(100 * 6);
    const unguarded = await contendedRuns('unguarded', 100);
    expect(unguarded.overlapping).toBeGreaterThan(0);
  });

  it('passes over a claim whose claimant died, to the next generation', async () => {
    const { value, sim } = await inProcess(
      sql,
      'lock-dead-claim',
      async (ctx, sim) => {
        await ctx.timers.sleep(500);
        // A claimant of the dead holder's payload that died before it removed anything.
        const payload = JSON.parse(sim.disk.peek(lockPathOf(file)) ?? '{}') as { pid: number; createdAtMs: number };
        sim.spawn('claimant', async (claimant) => {
          await claimant.disk.createExclusive(`${lockPathOf(file)}.reclaim-${payload.pid}-${payload.createdAtMs}-0`, JSON.stringify({ pid: claimant.incarnation }));
          await claimant.timers.sleep(3_600_000);
        });
        await ctx.timers.sleep(100);
        void sim.kill('claimant');
        const lock = await acquireSessionWriteLock(ctx, file);
        await lock.release();
        return ctx.clock.nowMs();
      },
      { prepare: holder(300) },
    );
    expect(value).toBeLessThan(700);
    const reclaimed = sim.trace.events.filter((event) => event.kind === 'model.session-lock-reclaimed');
    expect(reclaimed.map((event) => event.fields.generation)).toEqual([1]);
    expect(sim.disk.peek(lockPathOf(file))).toBeUndefined();
  });
});
