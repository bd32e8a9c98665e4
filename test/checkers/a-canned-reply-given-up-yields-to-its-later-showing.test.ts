// Canned replies (sim/checkers/attribution.ts): a canned reply given up visibly (refused for good, the give-up
// recorded) takes part in the matching at the instant of its record, and may be matched to nothing, since the user
// never saw it. When a later showing of the same text finds no subject, the give-up yields its subject to it, as a
// possible repeat does, but without an excuse. Chaos with send-heavy runs, seed 1 run 7,445: a /clear's `Session
// cleared.` was refused (chat not found) and given up; 49 s later the network replayed the refused send and the
// platform showed it. The give-up had taken the /clear, so the showing, the only one the user saw, was called shown
// again (no-duplicate-visible-reply).
import { describe, expect, it } from 'vitest';
import { attributeAll, isGivenUpReply } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:1';

describe('a canned reply given up visibly', () => {
  it('yields its subject to a later showing of its text that finds no other', async () => {
    await withFrozenPlan(sql, 'session-cleared-shown-again-send-heavy', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      // The shape: the reply's send refused for good and given up, then shown by the network's replay of that send.
      const givenUp = events.find((event) => event.kind === 'model.delivery-given-up' && event.fields.key === 'in:d2:result:45569f97');
      expect(givenUp?.fields.reason).toBe('not-found');
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === 'Session cleared.');
      expect(shown).toHaveLength(1);
      expect(shown[0]?.atMs).toBeGreaterThan(givenUp?.timeMs ?? Infinity);
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      expect(attribution?.unexplained).toEqual([]);
      const reply = attribution?.cannedFor.get('[m2]');
      expect(reply).toBe(shown[0]);
      expect(reply === undefined ? true : isGivenUpReply(reply)).toBe(false);
    });
  });
});
