// A reply given up visibly is not lost (issue 48, sim/checkers/refusals.ts): the platform refused a send of it for good
// (the chat was not found) and the system recorded the give-up in state.db's delivery_obligations. That held for the
// LLM's answers only; a canned reply given up so left its subject owed a reply (every-inbound-answered). Found by a
// fixed-model chaos campaign once chaos drew the platform's shapes (`fuzz --scenario chaos --seed 11`, run 87, frozen
// as `clear-reply-given-up-chat-not-found`): a /clear's `Session cleared.` went to a chat not found for a while; the
// gateway gave it up and recorded it, and the /clear was called unanswered. Each canned give-up now excuses one subject
// it may answer (liveness.ts cannedGivenUpFor). Without the record, or without the permanent refusal, the same run is
// still judged unanswered.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { readDurableState } from '../../sim/checkers/durable.ts';
import { checkLiveness } from '../../sim/checkers/liveness.ts';
import { kernelFacts, type Observations } from '../../sim/checkers/observations.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { modelDescription, type RunResult } from '../../sim/run/harness.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

/** The run's observations as the checkers make them, changed by `edit`. */
function observations(result: RunResult, edit: (o: Observations) => Observations = (o) => o): Observations {
  return edit({
    sessions: [session],
    ledger: result.ledger,
    durable: readDurableState(result.sim, [session], 'synced', modelDescription),
    kernel: kernelFacts(result.sim.trace.events),
    events: result.sim.trace.events,
    faultPhaseMs: result.spec.plan.faultPhaseMs,
    quiescenceGraceMs: 65_000,
    endMs: result.simTimeMs,
    system: modelDescription,
  });
}

function liveness(o: Observations): Violation[] {
  const out: Violation[] = [];
  checkLiveness(o, attributeAll(o), out);
  return out;
}

describe('a canned reply given up visibly', () => {
  it("answers the /clear it was owed to: the chat was not found, the give-up recorded", async () => {
    await withFrozenPlan(sql, 'clear-reply-given-up-chat-not-found', (result) => {
      // The shape: the clear reply was refused for good and never shown; the give-up is in state.db.
      expect(result.ledger.sendRefusals.some((refusal) => refusal.sessionKey === session && refusal.permanent && refusal.text === modelDescription.clearedReply)).toBe(true);
      expect(result.ledger.shown.some((fact) => fact.text === modelDescription.clearedReply)).toBe(false);
      const o = observations(result);
      expect(o.durable.deliveryObligations?.some((row) => row.content === modelDescription.clearedReply && row.state === 'failed')).toBe(true);
      expect(result.violations).toEqual([]);
      expect(liveness(o)).toEqual([]);
    });
  });

  it('does not excuse the /clear when the give-up is recorded nowhere, or the refusal was not for good', async () => {
    await withFrozenPlan(sql, 'clear-reply-given-up-chat-not-found', (result) => {
      const unrecorded = liveness(observations(result, (o) => ({ ...o, durable: { ...o.durable, deliveryObligations: [] } })));
      // The other replies given up in the run (m0's answer, the task's) lose their record too.
      expect(unrecorded.map((violation) => violation.message)).toContainEqual(expect.stringContaining('message [m1] (delivery d1) got no reply'));
      const passing = (o: Observations): Observations => {
        const ledger = Object.assign(Object.create(Object.getPrototypeOf(o.ledger) as object) as Observations['ledger'], o.ledger, {
          sendRefusals: o.ledger.sendRefusals.map((refusal) => ({ ...refusal, permanent: false })),
        });
        return { ...o, ledger };
      };
      expect(liveness(observations(result, passing)).map((violation) => violation.message)).toContainEqual(expect.stringContaining('message [m1] (delivery d1) got no reply'));
    });
  });
});
