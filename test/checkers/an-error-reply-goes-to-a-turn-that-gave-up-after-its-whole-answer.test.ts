// An error reply goes to a subject whose answer was shown whole and whose turn then gave up (its last request failed,
// and it is never asked again) rather than to the earliest open subject whose answer merely came back with nothing
// shown yet and which is asked again after the reply (its turn still retrying). Chaos campaign seed 301 found it at run
// 13471, a false failure-notice-final on the fixed model: m6's answer was its tool message alone ("interim update",
// shown), its turn then failed four times and gave up with m6's error reply; meanwhile m7 and m8's turn had its answer
// back and failed on a busy state.db, so the reply was credited to m7 (and m8 as its mate), and their turn's next
// request counted as acting on a request the user was told had failed. The shape needs a campaign's plan, so its plan
// is replayed and the shape checked first.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.15575140.0-10-6-6-7-7-19-13-12-11-11-11-12-17-17-18-27-21-22-21.0_1_0-75a0f6.505711af; its plan is frozen.
const plan = 'error-reply-after-a-whole-answer';

describe('an error reply after a whole answer', () => {
  it('is the turn’s that gave up after its answer was shown whole, not a retrying turn’s whose answer came back', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const session = 'agent:main:chat:0';
      const requests = result.ledger.requests.filter((request) => request.sessionKey === session);
      const carrying = (marker: string) => requests.filter((request) => request.prompt.includes(marker));
      const firstError = result.ledger.shown.find((fact) => fact.sessionKey === session && fact.text === errorReply);
      expect(firstError).toBeDefined();
      const at = firstError?.atMs ?? 0;
      // m6: asked five times before the reply, the last failed, and never again.
      expect(carrying('[m6]').at(-1)?.outcome).toBe('error');
      expect(carrying('[m6]').every((request) => request.atMs < at)).toBe(true);
      // m7: its last request before the reply came back with an answer, and it is asked again after the reply.
      const m7Before = carrying('[m7]').filter((request) => request.atMs < at);
      expect(m7Before.at(-1)?.outcome).toBe('answer');
      expect(carrying('[m7]').some((request) => request.atMs > at)).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});
