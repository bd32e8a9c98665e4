// Canned replies (sim/checkers/attribution.ts): a turn that gives up writes its user row in state.db, then the row of
// its error reply, then the reply's outbound row; so the error reply shown goes only to a subject with a user row in
// state.db by the showing. The session's last request is evidence of which turn a reply ended, but not every request
// is a turn's: the gateway's heartbeat run and OpenClaw's cron executor ask the LLM outside the chat's lane, before any
// turn of theirs wrote a row. Both plans below (chaos with every run send-heavy, issue 44) had a message's turn give up
// after long busy retries while the gateway had just asked about another subject; the reply went to that subject, and
// its action, taken later by the runner's turn, was called one after its failure notice (effect-at-most-once).
// - error-reply-of-a-turn-that-gave-up-after-its-answer-beside-a-heartbeat-run (seed 14 run 350): m3's answer was shown
//   whole, its turn then gave up; the heartbeat run had asked about command run-5 a moment before the reply was shown;
// - error-reply-of-a-message-beside-a-task-occurrence-asked-by-the-gateway (seed 13 run 807): m5's turn gave up; the
//   cron executor had asked about an occurrence of task t0.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

const cases = [
  { plan: 'error-reply-of-a-turn-that-gave-up-after-its-answer-beside-a-heartbeat-run', message: '[m3]', other: 'run:run-5', marker: 'id=run-5', replyAtMs: 342_510 },
  { plan: 'error-reply-of-a-message-beside-a-task-occurrence-asked-by-the-gateway', message: '[m5]', other: '<task time="2026-01-01T00:03:02.005Z">Instructions:\nRemind me to water the plants [t0]</task>', marker: '2026-01-01T00:03:02.005Z', replyAtMs: 257_681 },
];

describe('an error reply goes only to a subject whose turn wrote its user row by the showing', () => {
  for (const { plan, message, other, marker, replyAtMs } of cases) {
    it(`is ${message}'s, not the subject the gateway had just asked about (${plan})`, async () => {
      await withFrozenPlan(sql, plan, (result) => {
        expect(result.violations).toEqual([]);
        const error = result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === replyAtMs);
        expect(error?.text).toMatch(/^Sorry/);
        // The gateway had asked about the other subject, and had its answer, by the showing.
        const asked = result.ledger.requests.filter((request) => request.sessionKey === session && request.prompt.includes(marker) && (request.endedAtMs ?? Infinity) <= replyAtMs);
        expect(asked.length).toBeGreaterThan(0);
        const o = observationsOf(result, session);
        // The other subject had no user row in state.db by then; the message had, and a later error row closes it.
        const users = o.durable.rows.filter((row) => row.sessionKey === session && row.role === 'user' && row.timestamp <= replyAtMs);
        expect(users.some((row) => row.content.includes(message))).toBe(true);
        expect(users.some((row) => row.content.includes(marker))).toBe(false);
        const attribution = attributeAll(o).get(session);
        expect(attribution?.cannedFor.get(message)).toBe(error);
        expect(attribution?.cannedFor.get(other)).not.toBe(error);
        expect([...(attribution?.cannedFor.entries() ?? [])].filter(([, fact]) => fact === error).map(([key]) => key)).toEqual([message]);
      });
    });
  }
});
