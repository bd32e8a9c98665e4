// transcript-consistent across rotations pairs each `Session cleared.` the user saw with a /clear of theirs
// (rotation.ts). On a key-less platform one reply may be shown twice: the gateway is killed the moment its first
// `Session cleared.` is shown (the acknowledgement is lost), a second /clear comes while it is down, and the restarted
// gateway first sends the old reply again, then, later, answers the second /clear. The repeat answers no /clear: a
// message typed between the repeat and the real answer is owed only the first rotation, and may rightly land in the
// second session of the key, not the third.
import { describe, expect, it } from 'vitest';
import { clearedReply } from '../../src/index.ts';
import { clearsSeen, checkRotations } from '../../sim/checkers/rotation.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { KeylessHistory, session } from './keyless-history.ts';

function history(): KeylessHistory {
  const built = new KeylessHistory();
  built.userTypes(1_000, 'd1', '/clear');
  built.platformShows(1_510, built.gatewaySends(1_500), clearedReply);
  built.killGateway(1_511, 3_000); // before the acknowledgement arrives: it is lost
  built.userTypes(3_000, 'd2', '/clear');
  const repeat = built.platformShows(5_610, built.gatewaySends(5_600), clearedReply);
  built.arrives(5_615, repeat.ackId);
  built.userTypes(7_000, 'd3', 'hello again');
  const second = built.platformShows(9_010, built.gatewaySends(9_000), clearedReply);
  built.arrives(9_015, second.ackId);
  return built;
}

/** checkRotations over the history, with the key's three sessions in state.db and the message typed at 7 s in `sessionId`. */
function violationsWithMessageIn(sessionId: string): Violation[] {
  const o = history().observations();
  o.durable.families.set(session, ['s-1', 's-2', 's-3'].map((id) => ({ sessionId: id, startedAtMs: null, endedAtMs: null, endReason: null })));
  o.durable.rows.push({ id: 1, sessionKey: session, sessionId, timestamp: 0, role: 'user', content: 'hello again <d3>', toolCallIds: [], toolCallId: null });
  const out: Violation[] = [];
  checkRotations(o, out);
  return out;
}

describe('session rotation on a key-less platform', () => {
  it('pairs the second /clear with its own reply, not with the repeat of the first', () => {
    expect(clearsSeen(history().observations(), session)).toEqual([1_510, 9_010]);
  });

  it('does not report a message typed between the repeat and the real answer in the second session', () => {
    expect(violationsWithMessageIn('s-2')).toEqual([]);
  });

  it('reports the same message in the first session, which the user was told had ended', () => {
    const out = violationsWithMessageIn('s-1');
    expect(out.map((violation) => violation.invariant)).toEqual(['transcript-consistent']);
    expect(out[0]?.message).toContain('in session s-1');
  });
});
