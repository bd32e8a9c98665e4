// Repeats on a key-less platform (sim/checkers/at-least-once.ts): the network's replay of a send is a copy for certain
// when the send's own arrival showed the same message. When the platform refused the send (a listener not ready after
// a restart, issue 48) its own arrival showed nothing, and the replay may be the first showing of its row. An earlier
// showing of the same text may have been the sender's resend of that row, or another answer's message of the same text:
// the replay is then a copy only perhaps, optional in the matching as a resend is. Found by a chaos campaign with every
// run send-heavy (seed 10, run 1683: m0's file report-2.pdf refused three times, another answer's report-2.pdf shown,
// then the replay of the first refused send, taken for a repeat, and m0's file called lost); its plan is frozen.
// A replay carries what its send held when it left, so it fills only a slot of an answer returned by then: without that,
// the replay of a refused send of m12's "Looking it up" (seed 13, run 691) filled m13's slot of that text, whose answer
// came back after the send, and m13's own showing went to an old closing text with no row (frozen too).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe('a replay of a refused send', () => {
  it("fills its row's slot when another answer's message of the same text was shown before", async () => {
    await withFrozenPlan(sql, 'replay-of-a-refused-send-after-another-answers-file', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      const files = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === 'report-2.pdf');
      const [other, replay] = files;
      expect(other?.atMs).toBe(12_244);
      expect(replay?.atMs).toBe(32_917);
      // The second showing is the network's replay of a send the platform had refused (not ready).
      const duplicate = events.find((event) => event.kind === 'net.duplicate' && event.timeMs === replay?.atMs && event.fields.from === 'gateway');
      expect(duplicate).toBeDefined();
      const sent = events.find((event) => event.kind === 'net.send' && event.fields.id === duplicate?.fields.id);
      const refusal = events.find((event) => event.kind === 'fault' && event.fields.kind === 'send-refused' && event.index > (sent?.index ?? Infinity));
      expect(refusal?.fields.reason).toBe('not-ready');
      // Each showing fills the slot of its own answer: the other answer's, then m0's.
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      const slots = (attribution?.answers ?? []).flatMap((answer) => answer.slots.filter((slot) => slot.text === 'report-2.pdf'));
      const m0 = slots.find((slot) => slot.answer.subjects.includes('[m0]'));
      expect(m0?.shownBy).toBe(replay);
      expect(slots.find((slot) => slot !== m0 && slot.shownBy === other)).toBeDefined();
    });
  });

  it('fills only a slot of an answer returned before its send left', async () => {
    await withFrozenPlan(sql, 'replay-of-a-refused-send-before-a-newer-answer-of-its-text', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      const sent = events.find((event) => event.kind === 'net.send' && event.fields.id === 242);
      const replay = events.find((event) => event.kind === 'net.duplicate' && event.fields.id === 242);
      expect(sent?.timeMs).toBe(3_999_229);
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      const m13 = attribution?.answers.find((answer) => answer.subjects.includes('[m13]'));
      // m13's answer came back after the send left; its slot is filled by its own showing, not by the replay.
      expect(m13?.first.returnedAtMs).toBeGreaterThan(sent?.timeMs ?? Infinity);
      const slot = m13?.slots.find((candidate) => candidate.text === 'Looking it up');
      expect(slot?.shownBy).toBeDefined();
      expect(slot?.shownBy?.atMs).not.toBe(replay?.timeMs);
    });
  });
});
