// A reply given up visibly is not lost (issue 48, sim/checkers/refusals.ts): the platform refused a send of it for good
// (the chat was not found) and the system recorded the give-up in state.db's delivery_obligations. That held for the
// LLM's answers only; a canned reply given up so left its subject owed a reply (every-inbound-answered). Found by a
// fixed-model chaos campaign once chaos drew the platform's shapes (`fuzz --scenario chaos --seed 11`, run 87, frozen
// as `clear-reply-given-up-chat-not-found`): a /clear's `Session cleared.` went to a chat not found for a while; the
// gateway gave it up and recorded it, and the /clear was called unanswered. Each canned give-up now excuses one subject
// it may answer (liveness.ts cannedGivenUpFor). Without the record, or without the permanent refusal, the same run is
// still judged unanswered.
import { describe, expect, it } from 'vitest';
import type { Observations } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { modelDescription } from '../../sim/run/harness.ts';
import { withFrozenPlan } from '../model/support.ts';
import { ledgerWith, livenessOf, observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe('a canned reply given up visibly', () => {
  it("answers the /clear it was owed to: the chat was not found, the give-up recorded", async () => {
    await withFrozenPlan(sql, 'clear-reply-given-up-chat-not-found', (result) => {
      // The shape: the clear reply was refused for good and never shown; the give-up is in state.db.
      expect(result.ledger.sendRefusals.some((refusal) => refusal.sessionKey === session && refusal.permanent && refusal.text === modelDescription.clearedReply)).toBe(true);
      expect(result.ledger.shown.some((fact) => fact.text === modelDescription.clearedReply)).toBe(false);
      const o = observationsOf(result, session);
      expect(o.durable.deliveryObligations?.some((row) => row.content === modelDescription.clearedReply && row.state === 'failed')).toBe(true);
      expect(result.violations).toEqual([]);
      expect(livenessOf(o)).toEqual([]);
    });
  });

  it('does not excuse the /clear when the give-up is recorded nowhere, or the refusal was not for good', async () => {
    await withFrozenPlan(sql, 'clear-reply-given-up-chat-not-found', (result) => {
      const unrecorded = livenessOf(observationsOf(result, session, (o) => ({ ...o, durable: { ...o.durable, deliveryObligations: [] } })));
      // The other replies given up in the run (m0's answer, the task's) lose their record too.
      expect(unrecorded.map((violation) => violation.message)).toContainEqual(expect.stringContaining('message [m1] (delivery d1) got no reply'));
      const passing = (o: Observations): Observations => ({ ...o, ledger: ledgerWith(o.ledger, { sendRefusals: o.ledger.sendRefusals.map((refusal) => ({ ...refusal, permanent: false })) }) });
      expect(livenessOf(observationsOf(result, session, passing)).map((violation) => violation.message)).toContainEqual(expect.stringContaining('message [m1] (delivery d1) got no reply'));
    });
  });
});
