// quiescent-after-heal (liveness): once the faults stop, no process is killed or crashes again. Judged from the
// kernel's own record of kills and crashes, not from any note of the model. The sabotage is a rogue supervisor, a
// simulated process holding the same supervisor port the gateway has, that SIGKILLs the healthy, idle runner every
// 30 s after the fault phase ends; the gateway's sweep restarts it each time, and every reply was delivered long
// before, so nothing else is wrong.
import { describe, expect, it } from 'vitest';
import { runnerName } from '../../src/index.ts';
import { quiescenceGraceMs } from '../../sim/run/harness.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, withRun } from '../model/support.ts';
import { firstReply, input, interim, messagesOf, type Prepare, secondReply, shown, twoTurns } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'quiescent-after-heal';

const rogueSupervisor: Prepare = (sim) =>
  sim.spawn('rogue-supervisor', async (ctx) => {
    await ctx.timers.sleep(twoTurns.faultPhaseMs);
    for (;;) {
      await ctx.timers.sleep(30_000);
      ctx.supervisor.kill(runnerName);
      ctx.supervisor.start(runnerName, 1_000);
    }
  });

/** One kill of the runner `afterMs` after the fault phase ends. */
const killOnceAfterHeal =
  (afterMs: number): Prepare =>
  (sim) =>
    sim.spawn('late-kill', async (ctx) => {
      await ctx.timers.sleep(twoTurns.faultPhaseMs + afterMs);
      ctx.supervisor.kill(runnerName);
    });

const killsOf = (result: Parameters<typeof shown>[0], name: string): number[] =>
  result.sim.trace.events.filter((event) => event.kind === 'proc.kill' && event.fields.name === name).map((event) => event.timeMs);

describe('quiescent-after-heal', () => {
  it('holds on the untouched run: nothing is killed', async () => {
    await withRun(sql, input(), (result) => {
      expect(killsOf(result, runnerName)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires when a supervisor keeps killing a healthy runner after the faults stopped', async () => {
    await withRun(sql, input(rogueSupervisor), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(killsOf(result, runnerName)).toEqual([150_000, 180_000, 210_000, 240_000]);
      // Each successor is killed within 60 s of its start, which supervision judges too.
      expect(invariants(result)).toEqual([invariant, 'supervision']);
      expect(messagesOf(result, invariant)).toEqual([
        // The kills within the grace (65 s after the heal at 120 s) are the system's due; the later ones are not.
        `2 kills or crashes after the faults stopped at 120000 ms (grace 65000 ms): ${[210_000, 240_000].map((atMs) => `${runnerName} killed at ${atMs} ms`).join(', ')}`,
      ]);
      expect(result.violations[0]?.class).toBe('liveness');
      expect(result.sim.trace.events[result.violations[0]?.step ?? -1]?.kind).toBe('proc.kill');
    });
  });

  it(`gives the system its stated grace (${quiescenceGraceMs / 1000} s) to act on what happened during the faults, and not a millisecond more`, async () => {
    await withRun(sql, input(killOnceAfterHeal(quiescenceGraceMs)), (result) => {
      expect(killsOf(result, runnerName)).toEqual([twoTurns.faultPhaseMs + quiescenceGraceMs]);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, input(killOnceAfterHeal(quiescenceGraceMs + 1)), (result) => {
      expect(invariants(result)).toEqual([invariant]);
    });
  });
});
