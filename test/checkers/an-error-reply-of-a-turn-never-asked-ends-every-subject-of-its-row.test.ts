// Canned replies (sim/checkers/attribution.ts, assignCanned): an error reply ends its turn, so it answers every subject
// the turn carried, the one it is assigned to and the others as its mates. Which subjects a turn carried was read from
// its last failed (or answered and unshown) LLM request only; a turn that never asked the LLM (every attempt failed on
// a busy database before the request, then it gave up) named none, and the other subjects of its row stayed open to
// take a later turn's error reply. Such a turn is known by its user row in state.db, closed by the error reply's row.
//
// Two chaos runs of the fixed model (both with Hermes' processing mode and compaction, frozen before the rule):
// - run 272 of `fuzz --scenario chaos --seed 1`: one system row carried run-5's start and finish, its turn gave up
//   unasked, and the reply went to the finish; the start, left open, took m7's error reply, m7 took m11's, and m11 was
//   called unanswered (and its first attempt's tool message lost);
// - `heartbeat-turn-gives-up-over-several-commands`: a heartbeat turn carrying the events of commands run-0 to run-4,
//   whose error reply left run-2 and run-3 open.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkLiveness } from '../../sim/checkers/liveness.ts';
import type { Observations } from '../../sim/checkers/observations.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { ShownFact } from '../../sim/world/ledger.ts';
import { withFrozenPlan } from '../model/support.ts';
import { ledgerWith, observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

/** The run's observations as the checkers make them, with the user's view of the showings `hidden` picks taken out. */
function observations(result: RunResult, hidden: (fact: ShownFact) => boolean = () => false): Observations {
  return observationsOf(result, session, (o) => ({ ...o, ledger: ledgerWith(o.ledger, { shown: o.ledger.shown.filter((fact) => !hidden(fact)) }) }));
}

const errorReplyAt = (result: RunResult, atMs: number): ShownFact | undefined => result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === atMs && fact.text.startsWith('Sorry'));

describe('an error reply of a turn that never asked the LLM', () => {
  it('answers every subject its closed row carries (chaos seed 1, run 272)', async () => {
    await withFrozenPlan(sql, 'error-text-answer-after-a-failed-attempt-with-compaction', (result) => {
      expect(result.violations).toEqual([]);
      const attribution = attributeAll(observations(result)).get(session);
      const ofRun5 = errorReplyAt(result, 506_517);
      // The row's turn: no request carried run-5 before its reply.
      expect(result.ledger.requests.some((request) => request.atMs <= 506_517 && request.prompt.includes('id=run-5'))).toBe(false);
      expect(attribution?.cannedFor.get('run:run-5')).toBe(ofRun5);
      expect(attribution?.cannedFor.get('start:run-5')).toBe(ofRun5);
      expect(attribution?.cannedFor.get('[m7]')).toBe(errorReplyAt(result, 528_814));
      expect(attribution?.cannedFor.get('[m11]')).toBe(errorReplyAt(result, 608_539));
    });
  });

  // Error replies are alike, so which subject is named unanswered may differ from the one whose reply was hidden (the
  // replies after it shift by one); the count is exact.
  it('still leaves a subject unanswered when one reply is not shown (the sabotage: the user never sees it)', async () => {
    await withFrozenPlan(sql, 'error-text-answer-after-a-failed-attempt-with-compaction', (result) => {
      for (const atMs of [506_517, 528_814, 608_539]) {
        const o = observations(result, (fact) => fact === errorReplyAt(result, atMs));
        const out: Violation[] = [];
        checkLiveness(o, attributeAll(o), out);
        expect(
          out.filter((violation) => violation.invariant === 'every-inbound-answered').map((violation) => violation.message),
          `the reply shown at ${atMs} ms hidden`,
        ).toHaveLength(1);
      }
    });
  });

  it('answers every command of a heartbeat turn that gave up over several (frozen chaos run)', async () => {
    await withFrozenPlan(sql, 'heartbeat-turn-gives-up-over-several-commands', (result) => {
      expect(result.violations).toEqual([]);
      const attribution = attributeAll(observations(result)).get(session);
      expect(attribution?.cannedFor.has('run:run-2')).toBe(true);
      expect(attribution?.cannedFor.has('run:run-3')).toBe(true);
    });
  });
});

// A command (or its start) is a subject from when the system took it up: a request carrying it, or its user row in
// state.db. Chaos seed 2, run 3784 (fixed model, frozen): run-5's exec events waited in the gateway's memory while m2's
// turn, its first answer lost to a busy state.db and a power loss, gave up; m2's error reply went to run-5, never asked
// and not yet a row, whose turn started 26 s after that showing, and m2 was judged unanswered.
describe('a command not yet taken up', () => {
  it('takes no error reply shown before its turn wrote its row or asked (chaos seed 2, run 3784)', async () => {
    await withFrozenPlan(sql, 'error-reply-before-a-command-was-taken-up', (result) => {
      expect(result.violations).toEqual([]);
      const attribution = attributeAll(observations(result)).get(session);
      const ofM2 = attribution?.cannedFor.get('[m2]');
      expect(ofM2?.text).toMatch(/^Sorry/);
      const run5Row = result.ledger.requests.find((request) => request.prompt.includes('id=run-5'));
      expect(run5Row === undefined || run5Row.atMs > (ofM2?.atMs ?? 0)).toBe(true);
      expect(attribution?.cannedFor.get('run:run-5')?.atMs ?? Infinity).toBeGreaterThan(ofM2?.atMs ?? 0);
    });
  });
});
