// On a platform that ignores idempotency keys, an error reply that may be a resend and whose best subject was
// answered whole (its turn gave up after its answer went out) is that subject's, not taken for a repeat: asking
// whether it is one claims the excuse (a kill, a lost acknowledgement) that an earlier resend needs. fuzz --all
// --seed 502 found it at chaos run 1530 under the attribution's keys (stop 32), a false no-duplicate-visible-reply:
// m0's error reply was shown, then resent after each of two power losses; much later m5's answer was shown whole and
// its turn gave up with an error reply, which the keys took for one more repeat, and the second resend of m0's reply
// was left without its excuse. The shape needs a campaign's plan, so its plan is frozen and checked first.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();
const plan = 'keyless-error-reply-after-a-whole-answer';

describe('a key-less error reply after a whole answer', () => {
  it("is the answered message's own, and the resends of an earlier error reply keep their excuses", async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const session = 'agent:main:chat:0';
      const errors = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === errorReply);
      // m0's reply and its two resends before the /clear, and m5's after its whole answer.
      expect(errors.filter((fact) => fact.atMs < 25_000)).toHaveLength(3);
      const last = errors.at(-1);
      expect(last?.atMs).toBeGreaterThan(500_000);
      const forM5 = result.ledger.requests.filter((request) => request.sessionKey === session && request.prompt.includes('[m5]'));
      expect(forM5.at(-1)?.outcome).toBe('answer');
      expect(result.violations).toEqual([]);
    });
  });
});
