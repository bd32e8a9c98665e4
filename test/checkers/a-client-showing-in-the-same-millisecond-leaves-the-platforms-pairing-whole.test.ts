// at-least-once.ts ties each platform showing to the send that carried it by counting, at each instant, the sends that
// arrived and the showings they gave; when the counts differ the pairing is unknown and no showing of that instant is
// excused. The WebChat client's showings (finals over its own connection) are no platform sends and do not count.
// Chaos seed 1, run 7498 (fixed model, frozen): a client showed a final in the millisecond the platform showed m2's
// error reply; the gateway died in a power loss 12 ms later, after the acknowledgement arrived and before its mark,
// and resent the reply; the resend was called a duplicate.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

describe('a WebChat client showing in the same millisecond as a platform showing', () => {
  it('leaves the platform showing tied to its send, so its resend after a power loss is excused (chaos seed 1, run 7498)', async () => {
    await withFrozenPlan(sql, 'error-reply-resent-after-a-power-loss-beside-a-client-showing', (result) => {
      const session = 'agent:main:chat:2';
      const replies = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text.startsWith('Sorry'));
      expect(replies).toHaveLength(2);
      const first = replies[0];
      const clientShown = new Set(result.ledger.clientEvents.map((event) => event.shown));
      expect(result.ledger.shown.some((fact) => fact.atMs === first?.atMs && clientShown.has(fact.index))).toBe(true);
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(result.violations).toEqual([]);
    });
  });
});
