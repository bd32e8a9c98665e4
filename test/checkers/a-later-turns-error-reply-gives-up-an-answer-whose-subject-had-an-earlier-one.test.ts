// An error reply gives up the answers of the turn it ended: every subject that turn's last failed request carried,
// even one another error reply was already assigned to. Here two commands (run-0 and run-3) share a system turn
// whose answer is partly shown (two of its four tool messages), a write fails, every retry fails, and the turn gives
// up with one error reply. Before it, the platform (it ignores idempotency keys) showed another message's error reply
// a second time, and that showing was assigned to run-0. The answer is given up all the same: it is not owed (chaos
// campaign seed 2 found the case at run 1306, a false no-lost-reply; this plan is the one the same campaign finds at
// run 224 with the rule taken out, shrunk). The shape needs a campaign's plan, so its plan is replayed and the
// shape checked first.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.659554298.0-21-1-0-1-1-1-1-1-3-0-4-3-3-3-5-23-22-35-35-35-35-36.0_1_0-4f551d.17b90c17 (chaos before it offered an action on the world); its plan is frozen.
const plan = 'later-turn-error-reply-gives-up';

describe("a later turn's error reply", () => {
  it('gives up its partly shown answer although one of its subjects had an earlier error reply', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const session = 'agent:main:chat:0';
      // The answer whose prompt carries run-0's and run-3's finishes.
      const answer = result.ledger.answers.find((fact) => fact.sessionKey === session && fact.prompt.includes('id=run-0,') && fact.prompt.includes('id=run-3,'));
      expect(answer).toBeDefined();
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === session);
      // Partly shown: some of its tool messages went out after it came back, some never did.
      const texts = answer?.toolCalls.map((call) => call.text) ?? [];
      expect(texts.some((text) => shown.some((fact) => fact.text === text && fact.atMs >= (answer?.returnedAtMs ?? 0)))).toBe(true);
      expect(texts.some((text) => !shown.some((fact) => fact.text === text))).toBe(true);
      // Two error replies after it came back: a repeat first, then the one its turn gave up with, after its last request.
      const errors = shown.filter((fact) => fact.text === errorReply && fact.atMs > (answer?.returnedAtMs ?? 0)).map((fact) => fact.atMs);
      const lastAskedMs = Math.max(...result.ledger.requests.filter((request) => request.prompt === answer?.prompt).map((request) => request.atMs));
      expect(errors.length).toBeGreaterThanOrEqual(2);
      expect(errors.filter((atMs) => atMs < lastAskedMs).length).toBeGreaterThan(0);
      expect(errors.at(-1)).toBeGreaterThan(lastAskedMs);
      expect(result.violations).toEqual([]);
    });
  });
});
