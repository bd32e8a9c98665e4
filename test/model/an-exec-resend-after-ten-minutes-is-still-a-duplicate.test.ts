// The node host resends an event the gateway has not acknowledged whenever its connection comes back. The gateway's
// durable exec keys were forgotten after 10 minutes (seed 000's proposed window); chaos with a quiet gap partitioned
// the gateway's link to the node host for 17 minutes right after the prompt of an `exec.started` was written and
// before its acknowledgement got through, and the resend after the heal became a second user turn
// (`no-double-ingestion`, issue 44). The keys are now kept by count (the newest 2,000 per session), not by age.
import { describe, expect, it } from 'vitest';
import { defaultTimers } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1209508518.0l010E2e27332noi564556C76799797a7C.0_1_0-0012ab.f90284fd (fuzz --scenario chaos
// --runs 500 --seed 3, run 434, shrunk); its plan is frozen.
const plan = 'exec-resend-after-a-seventeen-minute-cut';

describe('an exec event resent after a long cut', () => {
  it('is dropped as a duplicate more than ten minutes after it was taken', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: the event taken, then the same event dropped as a duplicate past the old window.
      const taken = events.find((event) => event.kind === 'model.system-event' && event.fields.event === 'exec.started');
      expect(taken).toBeDefined();
      const dropped = events.find((event) => event.kind === 'model.exec-duplicate-dropped' && event.fields.run === taken?.fields.run && event.fields.event === 'exec.started');
      expect(dropped).toBeDefined();
      expect((dropped?.timeMs ?? 0) - (taken?.timeMs ?? 0)).toBeGreaterThan(defaultTimers.execDedupeWindowMs);
      expect(result.violations).toEqual([]);
    });
  });
});
