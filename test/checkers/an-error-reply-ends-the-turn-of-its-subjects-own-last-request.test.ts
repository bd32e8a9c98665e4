// Canned replies (sim/checkers/attribution.ts): an error reply answers one subject and, as its mates, the other
// subjects of the turn it ended. That turn was read from the session's last request (when its answer was shown in part,
// or not at all) or from the subject's last failed request. A session's requests are not all its chat lane's turns:
// Hermes' dashboard asks in the session (a second writer sharing its store), and so do the gateway's cron executor and
// heartbeat run, outside the lane. When one of them asked after a turn's last answered request, neither reading found
// the turn, so a command's start, carried in one row with its finish, was left open and its answer called lost. The
// turn is then the subject's own last request, answered (for a subject no answer covered by then).
//
// Two plans of the fixed model, both from chaos generators with a send-heavy swarm choice (busy session databases):
// - reply-lost-under-busy-session-databases-send-heavy (seed 1, run 316): a dashboard asked between the last request of
//   run-0's row and the error reply that ended its turn;
// - error-reply-after-a-cron-request-send-heavy (seed 8, run 200, every run send-heavy): the cron executor asked for a
//   task between the last request of run-6's row and its error reply.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

const cases = [
  { plan: 'reply-lost-under-busy-session-databases-send-heavy', run: 'run-0', replyAtMs: 546_080, between: (request: { plain: boolean }) => request.plain },
  { plan: 'error-reply-after-a-cron-request-send-heavy', run: 'run-6', replyAtMs: 1_092_159, between: (request: { prompt: string }) => request.prompt.startsWith('<task') },
];

describe("an error reply ends the turn of its subject's own last request", () => {
  for (const { plan, run, replyAtMs, between } of cases) {
    it(`answers ${run} and its start (${plan})`, async () => {
      await withFrozenPlan(sql, plan, (result) => {
        expect(result.violations).toEqual([]);
        const error = result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === replyAtMs);
        expect(error?.text).toMatch(/^Sorry/);
        const requests = result.ledger.requests.filter((request) => request.sessionKey === session);
        // The row's last request was answered; a request of another kind was asked after it, before the reply.
        const last = requests.filter((request) => request.atMs <= replyAtMs && request.prompt.includes('Exec started')).at(-1);
        expect(last?.outcome).toBe('answer');
        const after = requests.filter((request) => request.atMs > (last?.atMs ?? Infinity) && request.atMs <= replyAtMs);
        expect(after.length).toBeGreaterThan(0);
        expect(after.every(between)).toBe(true);

        const attribution = attributeAll(observationsOf(result, session)).get(session);
        expect(attribution?.cannedFor.get(`run:${run}`)).toBe(error);
        expect(attribution?.cannedFor.get(`start:${run}`)).toBe(error);
        const answer = attribution?.answers.find((candidate) => candidate.subjects.includes(`start:${run}`));
        expect(answer?.slots.some((slot) => slot.shownBy === null)).toBe(true);
        expect(answer?.gaveUp).toBe(true);
      });
    });
  }
});
