// A /clear the system gives up on (its reset could not be written) is answered with the error reply and resets
// nothing: the user, told it failed, goes on in the old conversation. The attribution credits an error reply to a
// /clear that state.db shows no reset for (no session of the key's family began after it and before the next
// /clear), and failure-notice-final catches a /clear told it failed whose reset was made, before the notice or after
// it. Chaos seed 931, run 29371: a /clear found state.db busy on each of its five tries; the give-up attempt wrote the
// error reply and rotated the session all the same. The oracle then took the reply for a duplicate and the /clear for
// unanswered; with the model fixed (no rotation on a give-up) it credited the reply to m1, whose answer was on its way.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { type DbRow, readDurableState, type SessionSpan } from '../../sim/checkers/durable.ts';
import { checkFailureNotices } from '../../sim/checkers/finality.ts';
import type { Observations } from '../../sim/checkers/observations.ts';
import { Placement } from '../../sim/checkers/placement.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();
const errorReply = 'Sorry, something went wrong. Please try again.';

/**
 * The durable state: the key's family (its first session from 500 ms, and one session a rotation began at each of
 * `resets`) and, when `closedWith` is given, the /clear's user row at 1.5 s and the row that closed its turn at 4.9 s.
 */
function withFamily(o: Observations, resets: readonly number[], closedWith?: string, m2Row = false): Observations {
  const spans: SessionSpan[] = [{ sessionId: session, startedAtMs: 500, endedAtMs: resets[0] ?? null, endReason: resets.length > 0 ? 'session_reset' : null }];
  for (const [index, atMs] of resets.entries()) spans.push({ sessionId: `${session}~${index}`, startedAtMs: atMs, endedAtMs: resets[index + 1] ?? null, endReason: index + 1 < resets.length ? 'session_reset' : null });
  const row = (id: number, timestamp: number, role: string, content: string): DbRow => ({ id, sessionKey: session, sessionId: session, timestamp, role, content, toolCallIds: [], toolCallId: null });
  const rows = closedWith === undefined ? [] : [row(1, 1_500, 'user', '/clear <d1>'), row(2, 4_900, 'assistant', `<message to="user">${closedWith}</message>`)];
  // m2's turn writes its user row before it asks (a turn that gives up on m2 has written it by its error reply).
  if (m2Row) rows.push(row(3, 3_500, 'user', 'can you check the calendar? <m2>'));
  rows.sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
  return { ...o, durable: { ...o.durable, rows, families: new Map([[session, spans]]) } };
}

function judge(o: Observations): Violation[] {
  const out: Violation[] = [];
  checkFailureNotices(o, attributeAll(o), out, new Placement(o));
  return out;
}

/**
 * The user types /clear (d1) at 1 s; its error reply is shown at 5 s. With `m2`, the user also types m2 at 3 s, and
 * m2's answer (asked at 3.5 s, back at 4.9 s) is shown just after the error reply, at 5.1 s: the shape of seed 931
 * with the model fixed.
 */
function clearGivenUp(m2: boolean): { history: KeylessHistory; notice: ReturnType<KeylessHistory['sendsAndShows']> } {
  const history = new KeylessHistory();
  history.ledger.platformHonoursKeys = true;
  history.userTypes(1_000, 'd1', '/clear');
  if (m2) {
    history.userTypes(3_000, 'm2', 'can you check the calendar?');
    history.answers(history.ledger.requestReceived(session, 'can you check the calendar? <m2>', 3_500), 'the calendar is free', 4_900);
  }
  const notice = history.sendsAndShows(5_000, errorReply);
  if (m2) history.sendsAndShows(5_100, 'the calendar is free');
  return { history, notice };
}

describe('a /clear told it failed', () => {
  it('takes the error reply when state.db shows its turn closed with it, before a message whose answer was on its way', () => {
    const { history, notice } = clearGivenUp(true);
    const o = withFamily(history.observations(), [], errorReply);
    const attribution = attributeAll(o).get(session);
    expect(attribution?.cannedFor.get('<d1>')).toBe(notice.shown);
    expect(attribution?.cannedFor.has('<m2>')).toBe(false);
    expect(attribution?.unexplained).toEqual([]);
    expect(judge(o)).toEqual([]);
  });

  it('is caught when its reset was made before the notice (seed 931: the give-up attempt rotated the session)', () => {
    const { history, notice } = clearGivenUp(true);
    const o = withFamily(history.observations(), [4_950], errorReply);
    expect(attributeAll(o).get(session)?.cannedFor.get('<d1>')).toBe(notice.shown);
    const violations = judge(o);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.invariant).toBe('failure-notice-final');
    expect(violations[0]?.message).toContain('error reply for the /clear message <d1>');
    expect(violations[0]?.message).toContain(`session ${session}~0 began at 5.0s`);
    expect(violations[0]?.timeMs).toBe(5_010);
  });

  it('is caught when its reset is made after the notice, where the rotation happens', () => {
    const { history } = clearGivenUp(false);
    const violations = judge(withFamily(history.observations(), [20_000]));
    expect(violations).toHaveLength(1);
    expect(violations[0]?.invariant).toBe('failure-notice-final');
    expect(violations[0]?.timeMs).toBe(20_000);
  });

  it('takes the error reply only when no other subject can if state.db does not show its turn closed with it', () => {
    for (const closedWith of [undefined, 'Session cleared.']) {
      const { history, notice } = clearGivenUp(true);
      const attribution = attributeAll(withFamily(history.observations(), [], closedWith, true)).get(session);
      expect(attribution?.cannedFor.get('<m2>')).toBe(notice.shown);
      expect(attribution?.cannedFor.has('<d1>')).toBe(false);
    }
  });

  it('passes when the reset that follows is a later /clear’s (queued behind it)', () => {
    const { history } = clearGivenUp(false);
    history.userTypes(6_000, 'd3', '/clear');
    history.sendsAndShows(7_000, 'Session cleared.');
    const o = withFamily(history.observations(), [6_500]);
    expect(attributeAll(o).get(session)?.cannedFor.get('<d3>')?.text).toBe('Session cleared.');
    expect(judge(o)).toEqual([]);
  });
});

describe('the model', () => {
  it('passes two /clears queued behind a message whose turn gave up after its tool message (chaos seed 946, run 32386)', async () => {
    // The first /clear's reset came after the second arrived; credited on its lack of a reset, it took m2's error
    // reply, and its own `Session cleared.` was then taken for a duplicate.
    await withFrozenPlan(sql, 'two-clears-behind-a-failed-turn', (result) => {
      expect(result.ledger.shown.filter((fact) => fact.text === 'Session cleared.')).toHaveLength(2);
      expect(result.ledger.shown.map((fact) => fact.text)).toContain(errorReply);
      expect(result.violations).toEqual([]);
    });
  });

  it('answers a /clear it gave up on with the error reply and rotates nothing (chaos seed 931, run 29371)', async () => {
    await withFrozenPlan(sql, 'clear-gives-up-on-a-busy-state-db', (result) => {
      const shown = result.ledger.shown.map((fact) => fact.text);
      expect(shown).toContain(errorReply);
      expect(shown).not.toContain('Session cleared.');
      expect(readDurableState(result.sim, ['agent:main:chat:0']).families.get('agent:main:chat:0')).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });
});
