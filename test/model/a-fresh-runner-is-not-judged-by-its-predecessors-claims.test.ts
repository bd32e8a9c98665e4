// nanoclaw's host sweep wakes a container when messages are due and then judges the claims already in outbound.db by
// the heartbeat: a claim older than 60 s with no heartbeat since kills the running container. Right after a power
// loss those claims and that heartbeat are the dead runner's, and the runner just started has not yet cleared them (it
// does at its start, clearStaleProcessingAcks), so the sweep killed it 8 ms after its start (`supervision`, chaos
// campaign `fuzz --scenario chaos --runs 2000 --seed 9`, shrunk). The fixed sweep judges only claims and a heartbeat
// from after the running runner started (the host knows when it started it). The shape needs the campaign's plan, so
// its plan is replayed and the shape checked first.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1575275187.0-28-2-2-17-4-5-5-5-5-5-4-4-4-4-5-4-5-4-6-5-5-4-2-4-3-3-3-3-5-14-14-14-15-27-2-18.0_1_0-4f551d.67979302 (chaos before it offered an action on the world); its plan is frozen.
const plan = 'fresh-runner-predecessor-claims';

describe("the host sweep after a power loss", () => {
  it("restarts the runner and leaves it alone while its predecessor's claims wait to be cleared", async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: a power loss, then a runner started again with a claim of its predecessor still processing.
      const powerLoss = events.find((event) => event.kind === 'fault' && event.fields.kind === 'power-loss');
      expect(powerLoss).toBeDefined();
      const restart = events.find((event) => event.kind === 'proc.restart' && event.fields.name === 'runner' && event.timeMs > (powerLoss?.timeMs ?? 0));
      expect(restart).toBeDefined();
      const cleared = events.find((event) => event.kind === 'model.claims-cleared' && event.fields.reason === 'runner-start' && event.timeMs >= (restart?.timeMs ?? 0));
      expect(cleared).toBeDefined();
      // No supervisor kill of the runner within a minute of that start.
      const kills = events.filter((event) => event.kind === 'fault' && event.fields.kind === 'supervisor-kill' && event.timeMs >= (restart?.timeMs ?? 0) && event.timeMs < (restart?.timeMs ?? 0) + 60_000);
      expect(kills).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });
});
