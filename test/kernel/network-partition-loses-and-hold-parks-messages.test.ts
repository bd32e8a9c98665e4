// Partition/heal and hold/release. A partition cuts both directions: a message sent while partitioned, or arriving
// while partitioned, is lost; heal restores delivery. A hold parks new messages on one link and its release lets
// them go, in order, no earlier than the release.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, makeSim, type Received, recordingReceiver, sendAt, spawnSenderAndReceiver } from './support.ts';

const sql = await loadSqlJs();

/** Sorted, distinct odd instants, paired into [start, end) windows. */
const windowsArb = fc
  .uniqueArray(fc.nat(1_000), { maxLength: 10 })
  .map((values) => values.map((value) => value * 2 + 1).sort((x, y) => x - y))
  .map((edges) => {
    const windows: [number, number][] = [];
    for (let i = 0; i + 1 < edges.length; i += 2) windows.push([edges[i] as number, edges[i + 1] as number]);
    return windows;
  });

function inWindow(windows: readonly [number, number][], timeMs: number): boolean {
  return windows.some(([start, end]) => timeMs >= start && timeMs < end);
}

/** Cut the link a→b at the start of each window (by `cut`) and restore it at the end (by `restore`). */
function cutDuring(
  sim: Simulation,
  windows: readonly [number, number][],
  cut: 'partition' | 'hold',
  restore: 'heal' | 'release',
): void {
  for (const [start, end] of windows) {
    sim.at(start, () => sim.network[cut]('a', 'b'));
    sim.at(end, () => sim.network[restore]('a', 'b'));
  }
}

describe('partition and heal', () => {
  it('loses messages sent during a partition or in flight when it starts, both ways; heal restores', async () => {
    const sim = makeSim(sql, 'partition');
    sim.network.configure('a', 'b', { delayMsMin: 10, delayMsMax: 10 });
    sim.network.configure('b', 'a', { delayMsMin: 10, delayMsMax: 10 });
    const log: Received[] = [];
    sim.spawn('a', recordingReceiver(log));
    sim.spawn('b', recordingReceiver(log));
    sendAt(sim, 0, 'a', 'b', 'in-flight');
    sim.at(5, () => sim.network.partition('a', 'b'));
    sendAt(sim, 20, 'a', 'b', 'during-a-to-b');
    sendAt(sim, 20, 'b', 'a', 'during-b-to-a');
    sim.at(30, () => sim.network.heal('a', 'b'));
    sendAt(sim, 40, 'a', 'b', 'after-a-to-b');
    sendAt(sim, 40, 'b', 'a', 'after-b-to-a');
    await sim.run();
    sim.dispose();
    expect(log.map(({ to, payload, atMs }) => ({ to, payload, atMs }))).toEqual([
      { to: 'b', payload: 'after-a-to-b', atMs: 50 },
      { to: 'a', payload: 'after-b-to-a', atMs: 50 },
    ]);
    const drops = eventsOfKind(sim, 'net.drop');
    expect(drops.map((event) => event.fields.reason)).toEqual(['partition', 'partition', 'partition']);
  });

  it('delivers a message exactly when the link is up both when it is sent and when it arrives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(100).map((half) => half * 2),
        windowsArb,
        fc.uniqueArray(fc.nat(1_000).map((half) => half * 2), { minLength: 1, maxLength: 80 }),
        async (seed, delayMs, windows, sendTimes) => {
          const sim = makeSim(sql, seed);
          sim.network.configure('a', 'b', { delayMsMin: delayMs, delayMsMax: delayMs });
          const log = spawnSenderAndReceiver(sim);
          cutDuring(sim, windows, 'partition', 'heal');
          for (const atMs of sendTimes) sendAt(sim, atMs, 'a', 'b', String(atMs));
          await sim.run();
          sim.dispose();
          const expected = sendTimes
            .filter((atMs) => !inWindow(windows, atMs) && !inWindow(windows, atMs + delayMs))
            .sort((x, y) => x - y);
          expect(log.map((receipt) => Number(receipt.payload))).toEqual(expected);
          for (const receipt of log) expect(receipt.atMs).toBe(Number(receipt.payload) + delayMs);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('hold and release', () => {
  it('parks messages while held and delivers them all, in order, after the release', async () => {
    const sim = makeSim(sql, 'hold');
    sim.network.configure('a', 'b', { delayMsMin: 1, delayMsMax: 30 });
    const log = spawnSenderAndReceiver(sim);
    sim.at(10, () => sim.network.hold('a', 'b'));
    for (let i = 0; i < 20; i++) sendAt(sim, 20 + i, 'a', 'b', String(i));
    let deliveredWhileHeld = -1;
    sim.at(5_000, () => {
      deliveredWhileHeld = log.length;
      sim.network.release('a', 'b');
    });
    await sim.run();
    sim.dispose();
    expect(deliveredWhileHeld).toBe(0);
    expect(log.map((receipt) => Number(receipt.payload))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const receipt of log) expect(receipt.atMs).toBeGreaterThanOrEqual(5_001);
    expect(eventsOfKind(sim, 'net.release')[0]?.fields.count).toBe(20);
  });

  it('holds only its own direction', async () => {
    const sim = makeSim(sql, 'hold-direction');
    const log: Received[] = [];
    sim.spawn('a', recordingReceiver(log));
    sim.spawn('b', recordingReceiver(log));
    sim.at(1, () => sim.network.hold('a', 'b'));
    sendAt(sim, 2, 'a', 'b', 'held');
    sendAt(sim, 2, 'b', 'a', 'free');
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => receipt.payload)).toEqual(['free']);
  });

  it('with random hold windows and send times, a FIFO link stays in order and releases nothing early', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(200),
        windowsArb,
        fc.uniqueArray(fc.nat(1_000).map((half) => half * 2), { minLength: 1, maxLength: 80 }),
        async (seed, delayMsSpan, windows, sendTimes) => {
          const sim = makeSim(sql, seed);
          sim.network.configure('a', 'b', { delayMsMin: 0, delayMsMax: delayMsSpan });
          const log = spawnSenderAndReceiver(sim);
          cutDuring(sim, windows, 'hold', 'release');
          const sorted = sendTimes.slice().sort((x, y) => x - y);
          for (const atMs of sorted) sendAt(sim, atMs, 'a', 'b', String(atMs));
          await sim.run();
          sim.dispose();
          expect(log.map((receipt) => Number(receipt.payload))).toEqual(sorted);
          for (const receipt of log) {
            const sentAtMs = Number(receipt.payload);
            const window = windows.find(([start, end]) => sentAtMs >= start && sentAtMs < end);
            if (window !== undefined) expect(receipt.atMs).toBeGreaterThanOrEqual(window[1]);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a release into a partition loses the held messages', async () => {
    const sim = makeSim(sql, 'release-into-partition');
    const log = spawnSenderAndReceiver(sim);
    sim.at(1, () => sim.network.hold('a', 'b'));
    sendAt(sim, 2, 'a', 'b', 'parked');
    sim.at(3, () => sim.network.partition('a', 'b'));
    sim.at(4, () => sim.network.release('a', 'b'));
    sim.at(5, () => sim.network.heal('a', 'b'));
    await sim.run();
    sim.dispose();
    expect(log).toHaveLength(0);
    expect(eventsOfKind(sim, 'net.drop').map((event) => event.fields.reason)).toEqual(['partition']);
  });
});
