// The attribution matches a canned reply given up visibly (refused for good, the give-up recorded in state.db's
// delivery_obligations) as it matches a canned reply shown, at the instant of its record (sim/checkers/attribution.ts),
// and an answer whose replies were all shown or given up so owes no error reply. Before, the give-ups were matched
// apart, after the attribution: in a fixed-model chaos run with the platform's chat not found (seed 13, run 1197, frozen
// as `error-reply-given-up-then-a-later-error-reply-shown`), m4's error reply was given up, m5's answer too, and m6's
// error reply was shown; the attribution gave the one shown to m4 (or to m5, whose answer looked unshown), and m6 was
// called unanswered and its answer lost. Now m4 takes its given-up reply, m5 is answered by its given-up answer and
// m6 takes its own. A given-up reply told the user nothing, so it is no failure notice.
import { describe, expect, it } from 'vitest';
import { attributeAll, isGivenUpReply } from '../../sim/checkers/attribution.ts';
import { failureNoticeOf } from '../../sim/checkers/finality.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { livenessOf, observationsWithGiveUps } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';


describe('a canned reply given up visibly', () => {
  it('is matched with the canned replies shown: each subject takes its own', async () => {
    await withFrozenPlan(sql, 'error-reply-given-up-then-a-later-error-reply-shown', (result) => {
      expect(result.violations).toEqual([]);
      const o = observationsWithGiveUps(result, session, true);
      const attribution = attributeAll(o).get(session);
      const m4 = attribution?.cannedFor.get('[m4]');
      const m6 = attribution?.cannedFor.get('[m6]');
      expect(m4 !== undefined && isGivenUpReply(m4)).toBe(true);
      expect(m6 !== undefined && !isGivenUpReply(m6) && result.ledger.shown.includes(m6)).toBe(true);
      expect(attribution?.cannedFor.has('[m5]')).toBe(false);
      // m4 was told nothing: its given-up error reply is no failure notice; m6's shown one is.
      const m4Subject = o.ledger.userMessages.find((message) => message.marker === '[m4]');
      const m6Subject = o.ledger.userMessages.find((message) => message.marker === '[m6]');
      expect(m4Subject !== undefined && failureNoticeOf(o, attribution, m4Subject)).toBe(undefined);
      expect(m6Subject !== undefined && failureNoticeOf(o, attribution, m6Subject)).toBe(m6);
    });
  });

  it('answers nothing without its record: the same run then leaves a subject unanswered', async () => {
    await withFrozenPlan(sql, 'error-reply-given-up-then-a-later-error-reply-shown', (result) => {
      expect(livenessOf(observationsWithGiveUps(result, session, false)).map((violation) => violation.invariant)).toContain('every-inbound-answered');
    });
  });
});
