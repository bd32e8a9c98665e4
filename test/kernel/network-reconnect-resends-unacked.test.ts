// A reconnecting link is a connection: the sender keeps each message until the receiver's acknowledgement comes
// back. A reset loses everything in flight and, after the reconnect delay, the sender resends every message it has
// not seen acknowledged, and no acknowledged one. A heal of a partitioned connection reconnects the same way. The
// resend buffer is the sender's memory: a kill of the sender empties it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import {
  eventsOfKind,
  makeSim,
  numberField,
  type RecordingReceiverOptions,
  sendAt,
  spawnSenderAndReceiver,
} from './support.ts';

const sql = await loadSqlJs();

const ackAll: RecordingReceiverOptions = { ack: () => true };

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function connect(sim: Simulation, reconnectDelayMs: number): void {
  sim.network.configure('a', 'b', { delayMsMin: 1, delayMsMax: 20, reconnecting: true, reconnectDelayMs });
  sim.network.configure('b', 'a', { delayMsMin: 1, delayMsMax: 20 });
}

describe('reconnect after a reset', () => {
  it('resends exactly the unacknowledged messages, in send order, after the reconnect delay', async () => {
    const sim = makeSim(sql, 'reconnect');
    connect(sim, 100);
    const log = spawnSenderAndReceiver(sim, { ack: ({ payload }) => payload === 'm0' || payload === 'm2' });
    for (let i = 0; i < 5; i++) sendAt(sim, 1 + i, 'a', 'b', `m${i}`);
    let unackedBeforeReset = -1;
    sim.at(500, () => {
      unackedBeforeReset = sim.network.unackedCount('a', 'b');
      sim.network.reset('a', 'b');
    });
    await sim.run();
    sim.dispose();
    expect(unackedBeforeReset).toBe(3);
    expect(log.slice(0, 5).map((receipt) => receipt.payload)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(log.slice(5).map((receipt) => receipt.payload)).toEqual(['m1', 'm3', 'm4']);
    for (const receipt of log.slice(5)) expect(receipt.atMs).toBeGreaterThanOrEqual(600);
    const resends = eventsOfKind(sim, 'net.resend');
    expect(resends.map((event) => numberField(event, 'seq'))).toEqual([2, 4, 5]);
    expect(resends.every((event) => event.timeMs === 600)).toBe(true);
  });

  it('for any set of acknowledgements, resends the complement and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 2_000 }),
        async (seed, acked, reconnectDelayMs) => {
          const sim = makeSim(sql, seed);
          connect(sim, reconnectDelayMs);
          const log = spawnSenderAndReceiver(sim, { ack: ({ payload }) => acked[Number(payload)] === true });
          acked.forEach((_, i) => sendAt(sim, 1 + i, 'a', 'b', String(i)));
          sim.at(1_000, () => sim.network.reset('a', 'b'));
          await sim.run();
          sim.dispose();
          const unacked = acked.flatMap((isAcked, i) => (isAcked ? [] : [String(i)]));
          expect(log.slice(acked.length).map((receipt) => receipt.payload)).toEqual(unacked);
          const counts = countBy(log.map((receipt) => receipt.payload));
          acked.forEach((isAcked, i) => expect(counts.get(String(i))).toBe(isAcked ? 1 : 2));
          expect(eventsOfKind(sim, 'net.resend')).toHaveLength(unacked.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('delivers every message at least once under repeated resets when the receiver acknowledges all', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(3_000), { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(3_000), { maxLength: 15 }),
        fc.integer({ min: 1, max: 500 }),
        async (seed, sendTimes, resetTimes, reconnectDelayMs) => {
          const sim = makeSim(sql, seed);
          connect(sim, reconnectDelayMs);
          const log = spawnSenderAndReceiver(sim, ackAll);
          sendTimes.forEach((atMs, i) => sendAt(sim, atMs, 'a', 'b', String(i)));
          for (const atMs of resetTimes) sim.at(atMs, () => sim.network.reset('a', 'b'));
          let unackedAtEnd = -1;
          sim.at(100_000, () => {
            unackedAtEnd = sim.network.unackedCount('a', 'b');
          });
          await sim.run();
          sim.dispose();
          const counts = countBy(log.map((receipt) => receipt.payload));
          sendTimes.forEach((_, i) => expect(counts.get(String(i)) ?? 0).toBeGreaterThanOrEqual(1));
          expect(unackedAtEnd).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('loses in-flight messages on a plain link reset and never resends them', async () => {
    const sim = makeSim(sql, 'plain-reset');
    sim.network.configure('a', 'b', { delayMsMin: 50, delayMsMax: 50, reconnecting: false });
    const log = spawnSenderAndReceiver(sim);
    sendAt(sim, 1, 'a', 'b', 'lost');
    sim.at(10, () => sim.network.reset('a', 'b'));
    sendAt(sim, 20, 'a', 'b', 'after');
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => receipt.payload)).toEqual(['after']);
    expect(eventsOfKind(sim, 'net.drop').map((event) => event.fields.reason)).toEqual(['reset']);
    expect(eventsOfKind(sim, 'net.resend')).toHaveLength(0);
  });
});

describe('reconnect after a heal', () => {
  it('resends, after the heal, what the partition swallowed', async () => {
    const sim = makeSim(sql, 'heal');
    connect(sim, 100);
    const log = spawnSenderAndReceiver(sim, ackAll);
    sendAt(sim, 1, 'a', 'b', 'before');
    sim.at(100, () => sim.network.partition('a', 'b'));
    sendAt(sim, 200, 'a', 'b', 'during');
    sim.at(300, () => sim.network.heal('a', 'b'));
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => receipt.payload)).toEqual(['before', 'during']);
    expect(log[1]?.atMs).toBeGreaterThanOrEqual(400);
    expect(eventsOfKind(sim, 'net.resend').map((event) => numberField(event, 'seq'))).toEqual([2]);
  });
});

describe('the resend buffer is the sender memory', () => {
  it('a killed and restarted sender does not resend what its previous incarnation sent', async () => {
    const sim = makeSim(sql, 'sender-killed');
    connect(sim, 100);
    const log = spawnSenderAndReceiver(sim);
    sendAt(sim, 1, 'a', 'b', 'old');
    sim.at(100, () => {
      sim.kill('a');
      sim.restart('a', 10);
    });
    sendAt(sim, 200, 'a', 'b', 'new');
    sim.at(300, () => sim.network.reset('a', 'b'));
    await sim.run();
    sim.dispose();
    // The kill drops the connection (a reconnect at 200) and the reset drops it again (a reconnect at 400): each
    // reconnect resends the new incarnation's unacknowledged 'new', never the dead incarnation's 'old'.
    expect(log.map((receipt) => receipt.payload)).toEqual(['old', 'new', 'new', 'new']);
    expect(eventsOfKind(sim, 'net.resend')).toHaveLength(2);
  });

  it('an acknowledgement lost to a reset makes the message arrive twice (at-least-once)', async () => {
    const sim = makeSim(sql, 'ack-lost');
    sim.network.configure('a', 'b', { delayMsMin: 10, delayMsMax: 10, reconnecting: true, reconnectDelayMs: 100 });
    sim.network.configure('b', 'a', { delayMsMin: 50, delayMsMax: 50 });
    const log = spawnSenderAndReceiver(sim, ackAll);
    sendAt(sim, 0, 'a', 'b', 'once');
    // Delivered at 10, its acknowledgement lands at 60: a reset at 30 loses it.
    sim.at(30, () => sim.network.reset('a', 'b'));
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => [receipt.payload, receipt.atMs])).toEqual([
      ['once', 10],
      ['once', 140],
    ]);
  });
});
