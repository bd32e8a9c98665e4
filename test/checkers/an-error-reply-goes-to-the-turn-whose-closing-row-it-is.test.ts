// Canned replies (sim/checkers/attribution.ts), rule R: when a subject's turn closed in state.db with the error reply
// (its closing row, the first assistant row with no tool call after its user row, is the error reply, written by the
// showing), that is the strongest evidence an error reply shown then is that subject's, covered or not. Without it the
// session's last request decided, and the gateway's own heartbeat run or cron executor, asking outside the chat's lane
// just before the reply, made a command or task occurrence look like the turn that ended; its action, taken later by the
// runner's turn, was judged an action after its failure notice (effect-at-most-once). Found by a chaos campaign with
// every run send-heavy: seed 14 run 350 (m3's turn showed its answer, failed on busy writes and closed with the error
// reply; the gateway's heartbeat run asked for command run-5 a moment before the reply was shown) and seed 13 run 807
// (m0 and m5 asked in one turn, which closed with the error reply; a task occurrence the gateway had asked for took
// it, and its reminder's action was judged to follow it); both frozen.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

const cases = [
  { plan: 'error-reply-of-a-turn-that-gave-up-after-its-answer-beside-a-heartbeat-run', subject: '[m3]', replyAtMs: 342_510, other: 'run:run-5' },
  { plan: 'error-reply-of-a-message-beside-a-task-occurrence-asked-by-the-gateway', subject: '[m5]', replyAtMs: 257_681, other: 't0' },
];

describe('an error reply', () => {
  for (const { plan, subject, replyAtMs, other } of cases) {
    it(`goes to ${subject}, whose turn closed with it (${plan})`, async () => {
      await withFrozenPlan(sql, plan, (result) => {
        expect(result.violations).toEqual([]);
        const reply = result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === replyAtMs);
        expect(reply?.text).toMatch(/^Sorry/);
        const attribution = attributeAll(observationsOf(result, session)).get(session);
        expect(attribution?.cannedFor.get(subject)).toBe(reply);
        // Not the command or task occurrence the gateway asked about.
        const others = [...(attribution?.cannedFor.entries() ?? [])].filter(([key]) => key.includes(other));
        expect(others.every(([, fact]) => fact !== reply)).toBe(true);
      });
    });
  }
});
