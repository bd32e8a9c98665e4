// A turn's create_event call took effect and its result row ('sent') reached state.db; then a power loss cut the envelope
// rewrite short (the plain user entry written, the copies of the answer lost), and the runner came back 80 s later, past
// the call's deadline. The resumed turn replays the call: the model said it expired and appended an `error` tool result
// to the JSONL while state.db kept 'sent' and the calendar held the event, so the JSONL's copy of the answer differed
// from the superseded one and the enveloped entry read as a second user entry of the message (`no-double-ingestion`,
// `transcript-consistent`; found by chaos once it drew client sessions with the envelope, issue 44). A call whose
// durable result row says it was made is made: the resumed turn appends 'sent', as state.db says.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1209508518.0022725443552C8342C38ccddcbbfCilk.0_1_0-0012ab.c5756818 (fuzz --scenario chaos
// --runs 500 --seed 3, run 434, shrunk); its plan is frozen.
const plan = 'resumed-call-past-its-deadline-after-a-cut-rewrite';

describe('a resumed tool call past its deadline', () => {
  it('keeps the result its durable row holds', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: the call took effect, a power loss, then the same call resumed after its deadline.
      const effect = events.find((event) => event.kind === 'model.effect');
      expect(effect).toBeDefined();
      const powerLoss = events.find((event) => event.kind === 'fault' && event.fields.kind === 'power-loss' && event.timeMs > (effect?.timeMs ?? 0));
      expect(powerLoss).toBeDefined();
      const resumed = events.filter((event) => event.kind === 'model.tool-call' && event.fields.call === effect?.fields.key && event.timeMs > (powerLoss?.timeMs ?? 0));
      expect(resumed.length).toBeGreaterThan(0);
      expect(events.filter((event) => event.kind === 'model.tool-call-expired' && event.fields.call === effect?.fields.key)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });
});
