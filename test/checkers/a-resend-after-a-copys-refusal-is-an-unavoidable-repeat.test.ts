// At-least-once delivery on a platform that ignores keys (sim/checkers/at-least-once.ts, in-flight.ts resendReason):
// a resend is excused when the world gave the sender a reason to send again and it could not know the first had
// landed. The platform's refusal of a send is such a reason, a network copy's refusal too: the sender cannot tell
// one from the other. Send-heavy chaos seed 3, run 8,226: part 1 of a task's reply was shown and its acknowledgement
// lost; the network replayed the send 2.4 s later and flood control refused the copy (retry after 1 s); the refusal
// reached the gateway, which sent the part again when the wait was over, and the user saw it twice. The repeat was
// called one with no reason (no-duplicate-visible-reply).
import { describe, expect, it } from 'vitest';
import { checkPartRepeats } from '../../sim/checkers/refusals.ts';
import { Placement } from '../../sim/checkers/placement.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf, withoutRefusals } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:2';
const key = 'task:t1@5210104:result:46c2af7a#1';

describe("a resend after the platform refused a network copy of the send", () => {
  it('is a repeat the sender could not avoid; hidden, the refusal leaves it one with no reason', async () => {
    await withFrozenPlan(sql, 'reply-part-shown-again-send-heavy', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      // The shape: the part shown with its answer lost, the network's copy refused, the part sent and shown again.
      const ambiguous = events.find((event) => event.kind === 'fault' && event.fields.kind === 'send-ambiguous' && event.fields.key === key);
      expect(ambiguous?.fields.lateMs).toBe(-1);
      const refused = events.find((event) => event.kind === 'fault' && event.fields.kind === 'send-refused' && event.fields.key === key);
      expect(events[(refused?.index ?? 0) - 1]?.kind).toBe('net.duplicate');
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text.startsWith('Part 1 of answer a0d16c560'))).toHaveLength(2);
      const judge = (hide: boolean): Violation[] => {
        const o = observationsOf(result, session, (seen) => (hide ? withoutRefusals(seen) : seen));
        const out: Violation[] = [];
        checkPartRepeats(o, out, new Placement(o));
        return out;
      };
      expect(judge(false)).toEqual([]);
      expect(judge(true).map((violation) => violation.invariant)).toEqual(['no-duplicate-visible-reply']);
    });
  });
});
