// one-send-in-flight (sim/checkers/in-flight.ts) reads a send as over when the platform's acknowledgement reached the
// sender; a refusal (issue 48: flood control with a retry-after) answers a send as well, but was not read as one. Found
// by a fixed-model chaos campaign once chaos drew the platform's shapes (`fuzz --scenario chaos --seed 12`, run 174,
// frozen as `resend-after-flood-control-then-a-network-copy`): the gateway's send of a reply at about 3 s was refused
// by flood control (retry after 1 s), the refusal reached it 20 ms later, and it sent the reply again 1,020 ms after
// the first; the network also replayed the first send 52 s later (dropped by the platform as a repeat of its key),
// which put that send among the platform's attempts, and the resend was judged a second send while the first was in
// flight. A send
// whose refusal reached the sender before the new send left is over. Without the refusal the same run
// is judged as before (the refusal hidden from the trace and the ledger).
import { describe, expect, it } from 'vitest';
import { checkSendsInFlight } from '../../sim/checkers/in-flight.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf, withoutRefusals } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

/** The checker's verdict; without refusals, the world's record of each (the ledger's and the trace's fault) is hidden. */
function inFlight(result: RunResult, withRefusals: boolean): Violation[] {
  const o = observationsOf(result, session, (seen) => (withRefusals ? seen : withoutRefusals(seen)));
  const out: Violation[] = [];
  checkSendsInFlight(o, out);
  return out;
}

describe('a resend after the platform refused the send', () => {
  it('is not a second send in flight when the refusal reached the sender first', async () => {
    await withFrozenPlan(sql, 'resend-after-flood-control-then-a-network-copy', (result) => {
      // The shape: one refusal by flood control, the same key taken later and again as the network's copy.
      const key = result.ledger.sendRefusals[0]?.key;
      expect(result.ledger.sendRefusals.map((refusal) => refusal.reason)).toEqual(['rate-limit']);
      expect(result.ledger.sendAttempts.filter((attempt) => attempt.key === key).map((attempt) => attempt.shown === null)).toEqual([false, true]);
      expect(result.violations).toEqual([]);
      expect(inFlight(result, true)).toEqual([]);
    });
  });

  it('is judged a second send in flight when no refusal answered the first', async () => {
    await withFrozenPlan(sql, 'resend-after-flood-control-then-a-network-copy', (result) => {
      expect(inFlight(result, false).map((violation) => violation.message)).toEqual([expect.stringMatching(/left gateway at \d+ ms while its send at \d+ ms was still in flight \(no acknowledgement arrived or was lost, 1020 ms is under/)]);
    });
  });
});
