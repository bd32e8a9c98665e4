// The platform's acknowledgement belongs to the send it answers (sim/checkers/in-flight.ts acksOfArrivals). The platform
// handles each arrival at once: it shows the send and puts its acknowledgement on the wire before anything else, unless
// its answer is ambiguous (a `send-ambiguous` fault: lost, or late by lateMs, sent then on a timer). Pairing the k-th
// arrival of an instant with the k-th acknowledgement of that instant gave the acknowledgement of one send to another
// send that arrived in the same millisecond and whose answer was lost (block-streaming seed 1 run 1876, frozen as
// `block-resent-beside-a-lost-answer-in-the-same-millisecond`: a streamed block was sent again after its wait timed
// out, and one-send-in-flight and no-duplicate-visible-reply called the resend one the gateway knew had landed).
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { acksOfArrivals } from '../../sim/checkers/in-flight.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

let index = 0;
function event(timeMs: number, kind: string, fields: Record<string, string | number>): TraceEvent {
  return { index: index++, timeMs, kind, fields } as TraceEvent;
}

describe("the platform's acknowledgement of a send", () => {
  it('is the one put on the wire right after the send arrived; a send whose answer was lost has none', () => {
    index = 0;
    const events = [
      event(100, 'net.send', { from: 'gateway', to: 'platform', id: 1, seq: 0, kind: 'send' }),
      event(100, 'net.send', { from: 'gateway', to: 'platform', id: 2, seq: 0, kind: 'send' }),
      event(200, 'net.deliver', { from: 'gateway', to: 'platform', id: 1, seq: 0 }),
      event(200, 'model.visible', { key: 'a' }),
      event(200, 'fault', { kind: 'send-ambiguous', key: 'a', lateMs: -1 }),
      event(200, 'net.deliver', { from: 'gateway', to: 'platform', id: 2, seq: 0 }),
      event(200, 'model.visible', { key: 'b' }),
      event(200, 'net.send', { from: 'platform', to: 'gateway', id: 3, seq: 0, kind: 'send.ack' }),
    ];
    const acks = acksOfArrivals(events);
    expect(acks.get(2)).toBeUndefined();
    expect(acks.get(5)?.id).toBe(3);
  });

  it('comes lateMs later for a late answer, even when another send arrives and is answered in that millisecond', () => {
    index = 0;
    const events = [
      event(100, 'net.send', { from: 'gateway', to: 'platform', id: 1, seq: 0, kind: 'send' }),
      event(200, 'net.deliver', { from: 'gateway', to: 'platform', id: 1, seq: 0 }),
      event(200, 'fault', { kind: 'send-ambiguous', key: 'a', lateMs: 7_000 }),
      event(7_100, 'net.send', { from: 'gateway', to: 'platform', id: 2, seq: 0, kind: 'send' }),
      event(7_200, 'net.deliver', { from: 'gateway', to: 'platform', id: 2, seq: 0 }),
      event(7_200, 'net.send', { from: 'platform', to: 'gateway', id: 3, seq: 0, kind: 'send.ack' }),
      event(7_200, 'net.send', { from: 'platform', to: 'gateway', id: 4, seq: 0, kind: 'send.ack' }),
    ];
    const acks = acksOfArrivals(events);
    expect(acks.get(4)?.id).toBe(3);
    expect(acks.get(1)?.id).toBe(4);
  });

  it('does not make a block sent again after its lost answer a send the gateway knew had landed (frozen plan)', async () => {
    await withFrozenPlan(sql, 'block-resent-beside-a-lost-answer-in-the-same-millisecond', (result) => {
      // Block 7 of in:d0's stream: taken at 111 s and at 128 s, each answer lost (the second in the millisecond another
      // session's block was taken and answered), and sent a third time after the wait.
      const key = 'in:d0:stream:122b616c:7';
      expect(result.ledger.sendAttempts.filter((attempt) => attempt.key === key)).toHaveLength(3);
      expect(result.violations).toEqual([]);
    });
  });

  it('excuses a resend after a restart when the first showing came from the link replaying the earlier send (frozen plan)', async () => {
    // Block 4 of in:d1's stream left the gateway just before a kill; its own arrival showed nothing, the link replayed
    // it at the next kill (3 min 11 s), and the restarted gateway sent it again (4 min 16 s): shown twice, the sender
    // killed in between. at-least-once.ts retried only a send's own arrival, never its replay, so this was a duplicate.
    await withFrozenPlan(sql, 'block-shown-by-a-link-replay-then-resent-after-a-restart', (result) => {
      const block = result.ledger.shown.find((fact) => fact.text.startsWith('Part 8 of answer ac963c073'))?.text;
      expect(result.ledger.shown.filter((fact) => fact.text === block)).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });
});
