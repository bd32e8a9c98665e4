// OpenClaw's session write lock (src/session-write-lock.ts): a lock file created exclusively with the holder's pid.
// A contender waits while the holder is alive and fails after 10 s ("session_busy"); once the holder is dead (a
// SIGKILL leaves its lock file behind) the file is stale and the contender reclaims it.
import { describe, expect, it } from 'vitest';
import { acquireSessionWriteLock, lockPathOf, SessionWriteLockError, sessionWriteLockTimeoutMs } from '../../../src/session-write-lock.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../../sim/kernel/simulation.ts';
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
});
