// no-double-ingestion across a rotation: a /clear starts a new session, and a message whose turn was cut off before it,
// unanswered, may be asked again in the new session (the same turn retried: its user row is then in both sessions'
// rows). Once the earlier session holds an answer to it (an assistant message whose text is the closing text of an
// LLM answer whose prompt carried it), a copy in the new session is a second turn. Chaos seed 605, run 10070, found
// the first shape as a false alarm: a poison message's turn was killed by the supervisor three times, its row waited
// out its back-off while a later /clear ran, and its turn then gave up with the error reply in the new session.
import { describe, expect, it } from 'vitest';
import type { DbRow } from '../../sim/checkers/durable.ts';
import { checkIngestion } from '../../sim/checkers/ingestion.ts';
import { kernelFacts, type Observations } from '../../sim/checkers/observations.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Ledger } from '../../sim/world/ledger.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';
const rotated = `${session}~0001`;
const closing = '<message to="user">you are free at 2pm</message>';

/** A run's observations with these state.db rows and no JSONL files; m0 typed, and asked once (answered when `answered`). */
function observations(rows: Omit<DbRow, 'id' | 'sessionKey' | 'toolCallIds' | 'toolCallId'>[], answered: boolean): Observations {
  const ledger = new Ledger();
  ledger.userTyped({ sessionKey: session, deliveryId: 'd0', text: 'can you check the calendar? [m0]', marker: '[m0]', mentions: true, sentAtMs: 500 });
  ledger.acknowledged('d0', 600);
  const request = ledger.requestReceived(session, 'can you check the calendar? [m0]', 1_000);
  if (answered) ledger.answerReturned(request, { toolCalls: [], result: closing }, 2_000);
  else ledger.requestFailed(request, 2_000);
  const durable = {
    rows: rows.map((row, id) => ({ ...row, id: id + 1, sessionKey: session, toolCallIds: [], toolCallId: null })),
    families: new Map([[session, [
      { sessionId: session, startedAtMs: 0, endedAtMs: 3_000, endReason: 'session_reset' },
      { sessionId: rotated, startedAtMs: 3_000, endedAtMs: null, endReason: null },
    ]]]),
    files: new Map(),
    transcripts: new Map(),
  };
  return { sessions: [session], ledger, durable, kernel: kernelFacts([]), events: [], faultPhaseMs: 0, quiescenceGraceMs: 0, endMs: 10_000 };
}

function judge(o: Observations): Violation[] {
  const out: Violation[] = [];
  checkIngestion(o, out);
  return out.filter((violation) => violation.invariant === 'no-double-ingestion');
}

const user = (sessionId: string, timestamp: number) => ({ sessionId, timestamp, role: 'user', content: 'can you check the calendar? [m0]' });
const clear = [
  { sessionId: session, timestamp: 2_900, role: 'user', content: '/clear' },
  { sessionId: session, timestamp: 2_950, role: 'assistant', content: '<message to="user">Session cleared.</message>' },
];

describe('a message in two sessions of a family', () => {
  it('is one ingestion when its turn was cut off unanswered before the /clear and retried after it', () => {
    const o = observations([user(session, 1_000), ...clear, user(rotated, 4_000), { sessionId: rotated, timestamp: 4_100, role: 'assistant', content: '<message to="user">Sorry, something went wrong. Please try again.</message>' }], false);
    expect(judge(o)).toEqual([]);
  });

  it('is a second ingestion when the earlier session holds an answer to it', () => {
    const o = observations([user(session, 1_000), { sessionId: session, timestamp: 2_000, role: 'assistant', content: closing }, ...clear, user(rotated, 4_000)], true);
    const violations = judge(o);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.message).toContain('[m0]');
    expect(violations[0]?.message).toContain('is in 2 user rows of state.db');
  });

  it('is a second ingestion when one session holds it twice, answered or not', () => {
    const o = observations([user(session, 1_000), user(session, 1_500), ...clear], false);
    expect(judge(o).map((violation) => violation.message)).toEqual([`${session}: message [m0] (delivery d0) is in 2 user rows of state.db`]);
  });

  it('passes the frozen plan of chaos seed 605, run 10070 (a poison message retried after a /clear)', async () => {
    await withFrozenPlan(sql, 'turn-retried-across-a-clear', (result) => {
      const rows = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === 'Session cleared.');
      expect(rows.length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });
});
