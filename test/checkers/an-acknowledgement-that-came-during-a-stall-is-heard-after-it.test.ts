// one-send-in-flight and the at-least-once excuse (sim/checkers/in-flight.ts resendReason, heardAtStep): an
// acknowledgement that reached the sender while the world held it stopped (a stall) is heard when it goes on, and in
// that instant the timers that fell due run before its I/O (Node's event loop runs the timers phase first), so a send
// the sender makes in the instant it goes on was made without it. Chaos seed 4, run 1,727 (the 20,000-run campaign on
// 157e17c): the gateway was stalled 15.6 s with a task's announce in flight; the platform showed it and its
// acknowledgement arrived 0.7 s into the stall; as the gateway went on, the announce's deadline had passed and it sent
// the direct fallback in that millisecond, which a key-less platform showed again. It was called a send after a known
// acknowledgement (one-send-in-flight) and a repeat with no reason (no-duplicate-visible-reply).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkSendsInFlight } from '../../sim/checkers/in-flight.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();
const text = 'answer 5588';

/**
 * The gateway sends `text` at 1 s; the platform shows it and acknowledges at once; the gateway is stalled from 1.5 s
 * until `contAtMs`; the acknowledgement reaches it at `ackAtMs`; it sends the row again at `resendAtMs`.
 */
function sentThenStalled(ackAtMs: number, contAtMs: number, resendAtMs: number): { h: KeylessHistory; verdicts: Violation[]; unexplained: number } {
  const h = new KeylessHistory();
  h.userTypes(100, 'm1', 'can you check the build?');
  h.answers(h.ledger.requestReceived(session, 'can you check the build? <m1>', 200), text, 900);
  // The send and its resend carry the outbound row's key (the platform ignores it).
  const shown = h.platformShows(1_010, h.gatewaySends(1_000), text, false, 'row-1');
  h.stallGateway(1_500, contAtMs);
  h.arrives(ackAtMs, shown.ackId);
  const again = h.platformShows(resendAtMs + 10, h.gatewaySends(resendAtMs), text, false, 'row-1');
  h.arrives(resendAtMs + 15, again.ackId);
  const o = h.observations();
  const verdicts: Violation[] = [];
  checkSendsInFlight(o, verdicts);
  return { h, verdicts, unexplained: attributeAll(o).get(session)?.unexplained.length ?? -1 };
}

describe('an acknowledgement that reached a stalled sender', () => {
  it('is heard only after the instant the sender goes on: a send in that instant is no send after a known acknowledgement', () => {
    // Stalled 18.5 s: the send's wait (5 s) is over when the gateway goes on, and it sends the row again in that instant.
    const { verdicts, unexplained } = sentThenStalled(2_200, 20_000, 20_000);
    expect(verdicts).toEqual([]);
    expect(unexplained).toBe(0);
  });

  it('is heard by a send made after that instant, and one that reached it before the stall is heard at once', () => {
    // Stalled 2.5 s: it goes on within the send's wait, hears the acknowledgement, and sends the row again 1 ms later.
    const later = sentThenStalled(2_200, 4_000, 4_001);
    expect(later.verdicts.map((violation) => violation.invariant)).toEqual(['one-send-in-flight']);
    expect(later.unexplained).toBe(1);
    const before = sentThenStalled(1_015, 4_000, 4_001);
    expect(before.verdicts.map((violation) => violation.invariant)).toEqual(['one-send-in-flight']);
    expect(before.unexplained).toBe(1);
  });

  it('passes the frozen plan of the seed string on the fixed model', async () => {
    await withFrozenPlan(sql, 'fallback-sent-as-a-stalled-gateway-went-on', (result) => {
      // The shape: the gateway stopped and went on, an announce failed as it went on, its fallback shown again.
      const kinds = result.sim.trace.events.map((event) => event.kind);
      expect(kinds).toContain('proc.stop');
      expect(kinds).toContain('model.announce-failed');
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(result.violations).toEqual([]);
    });
  });
});
