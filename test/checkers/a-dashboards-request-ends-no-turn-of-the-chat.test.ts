// Canned replies (sim/checkers/attribution.ts): an error reply ends the turn of the session's last request, and it
// answers as mates the other subjects that turn carried. A dashboard (a second writer sharing the session's store)
// asks the LLM in the same session with a plain request, no tools; its answer goes to no chat. Counted as the chat's
// last request, it hid the turn the error reply ended: a command start whose turn flushed its answer, gave up on busy
// databases and told the user with the error reply had that reply go to the command alone, and its start's answer was
// judged lost. Found by a candidate chaos generator with a send-heavy swarm choice (seed 1, run 316), frozen as
// reply-lost-under-busy-session-databases-send-heavy.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkReplies } from '../../sim/checkers/replies.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { ledgerWith, observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe("a dashboard's plain request", () => {
  it('ends no turn of the chat: the error reply answers the command and its start', async () => {
    await withFrozenPlan(sql, 'reply-lost-under-busy-session-databases-send-heavy', (result) => {
      expect(result.violations).toEqual([]);
      const error = result.ledger.shown.find((fact) => fact.sessionKey === session && fact.text.startsWith('Sorry'));
      expect(error?.atMs).toBe(546_080);
      const requests = result.ledger.requests.filter((request) => request.sessionKey === session);
      // The last request carrying run-0's start was answered long before the reply; a dashboard asked after it.
      const lastStart = requests.filter((request) => request.atMs <= 546_080 && request.prompt.includes('Exec started')).at(-1);
      const between = requests.filter((request) => request.atMs > (lastStart?.atMs ?? Infinity) && request.atMs <= 546_080);
      expect(lastStart?.outcome).toBe('answer');
      expect(between.length).toBeGreaterThan(0);
      expect(between.every((request) => request.plain)).toBe(true);

      const o = observationsOf(result, session);
      const attribution = attributeAll(o).get(session);
      expect(attribution?.cannedFor.get('run:run-0')).toBe(error);
      expect(attribution?.cannedFor.get('start:run-0')).toBe(error);
      const start = attribution?.answers.find((answer) => answer.subjects.includes('start:run-0'));
      expect(start?.gaveUp).toBe(true);

      // The dashboard's requests taken for the chat's (the rule undone): the start's answer is called lost.
      const asChat = observationsOf(result, session, (seen) => ({ ...seen, ledger: ledgerWith(seen.ledger, { requests: seen.ledger.requests.map((request) => ({ ...request, plain: false })) }) }));
      const out: Violation[] = [];
      checkReplies(asChat, attributeAll(asChat), out);
      expect(out.map((violation) => violation.invariant)).toEqual(['no-lost-reply']);
      expect(out[0]?.message).toContain('the reply "done" the LLM produced for run:run-0 start:run-0 was never shown');
    });
  });
});
