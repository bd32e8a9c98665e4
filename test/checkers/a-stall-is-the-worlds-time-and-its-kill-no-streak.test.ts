// A stall is the world holding a process down (SIGSTOP, a `stall` fault), as a kill by a fault is: answered-in-time does
// not count its time, and a supervisor's kill of the stalled incarnation is the system doing as it should, not one of
// a streak of kills without progress (supervision). Chaos with a quiet gap (issue 44 item 4) stalled the runner for
// 36 min, past the sweep's 30 min ceiling: the sweep killed it, and a poison message then took nanoclaw's six kills,
// so the old rules saw seven kills in a row and a message answered 44 min after it was first asked about.
import { describe, expect, it } from 'vitest';
import { kernelFacts } from '../../sim/checkers/observations.ts';
import { worldDowntime } from '../../sim/checkers/liveness.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1857034577.0o32G5245E669EbaEbb22bdc.0_1_0-a8dd6b.4bb6ab80 (fuzz --scenario chaos --runs 500
// --seed 3, run 66, with the rules before this test: answered-in-time and supervision); its plan is frozen.
const plan = 'runner-stalled-past-the-sweep-ceiling-then-a-poison-message';

describe('a stall of the runner past the sweep ceiling', () => {
  it("is the world's time, and the sweep's kill of the stalled runner starts no streak", async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const kernel = kernelFacts(result.sim.trace.events);
      const stop = kernel.find((fact) => fact.kind === 'stop' && fact.process === 'runner');
      expect(stop).toBeDefined();
      // The sweep kills the stalled incarnation (no cont came first): the shape the old rules misjudged.
      const kill = kernel.find((fact) => fact.kind === 'kill' && fact.cause === 'supervisor' && fact.incarnation === stop?.incarnation);
      expect(kill).toBeDefined();
      expect(kernel.some((fact) => fact.kind === 'cont' && fact.incarnation === stop?.incarnation && fact.step < (kill?.step ?? 0))).toBe(false);
      // The world's downtime holds the stall until the next runner is ready; without the stall's facts it would not.
      const endMs = result.sim.clock.nowMs();
      const covers = (spans: { fromMs: number; toMs: number }[]) => spans.some((span) => span.fromMs <= (stop?.timeMs ?? 0) && span.toMs >= (kill?.timeMs ?? 0));
      expect(covers(worldDowntime({ kernel, endMs }))).toBe(true);
      expect(covers(worldDowntime({ kernel: kernel.filter((fact) => fact.kind !== 'stop' && fact.kind !== 'cont'), endMs }))).toBe(false);
      // And the run is clean.
      expect(result.violations).toEqual([]);
    });
  });
});
