// The network's basic contract: a message is delivered only if it was sent (to that endpoint, by that sender,
// and not before it was sent), whatever the faults; a link without `reorder` is FIFO; drop and duplicate do what
// their rates say.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LinkConfig } from '../../sim/kernel/network.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import {
  eventsOfKind,
  idleMain,
  makeSim,
  numberField,
  type Received,
  type RecordingReceiverOptions,
  recordingReceiver,
  sendAt,
  spawnSenderAndReceiver,
} from './support.ts';

const sql = await loadSqlJs();

/** Acknowledge about half of the deliveries, at random. */
const ackHalf: RecordingReceiverOptions = { ack: (_, ctx) => ctx.random.chance(1, 2) };

/** Send from the live incarnation of `from` at `atMs`, as a kernel event; nothing if it is not running. */
function sendIfRunningAt(
  sim: Simulation,
  atMs: number,
  from: string,
  to: string,
  payload: string,
  onSent: () => void,
): void {
  sim.at(atMs, () => {
    const sender = sim.processes.current(from);
    if (sender === undefined) return;
    onSent();
    sim.network.send(sender, to, payload);
  });
}

const names = ['a', 'b', 'c'] as const;
const nameArb = fc.constantFrom(...names);
const pairArb = fc.tuple(nameArb, nameArb).filter(([x, y]) => x !== y);

const linkConfigArb: fc.Arbitrary<Partial<LinkConfig>> = fc
  .record({
    delayMsMin: fc.nat(50),
    delayMsSpan: fc.nat(300),
    dropPer1000: fc.constantFrom(0, 100, 500),
    duplicatePer1000: fc.constantFrom(0, 100, 500),
    duplicateDelayMsMax: fc.integer({ min: 1, max: 2_000 }),
    reorder: fc.boolean(),
    reconnecting: fc.boolean(),
    reconnectDelayMs: fc.integer({ min: 1, max: 1_000 }),
  })
  .map(({ delayMsSpan, ...config }) => ({ ...config, delayMsMax: config.delayMsMin + delayMsSpan }));

type Action =
  | { verb: 'send'; from: string; to: string }
  | { verb: 'partition' | 'heal' | 'hold' | 'release' | 'reset'; a: string; b: string }
  | { verb: 'kill'; name: string; restartDelayMs: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: pairArb.map(([from, to]): Action => ({ verb: 'send', from, to })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('partition', 'heal', 'hold', 'release', 'reset' as const), pairArb)
      .map(([verb, [a, b]]): Action => ({ verb, a, b })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(nameArb, fc.nat(500))
      .map(([name, restartDelayMs]): Action => ({ verb: 'kill', name, restartDelayMs })),
  },
);

const scheduleArb = fc.array(fc.tuple(fc.nat(5_000), actionArb), { minLength: 30, maxLength: 150 });

describe('network delivers only what was sent', () => {
  it('under every fault, each delivery matches an earlier send by that sender to that endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.array(linkConfigArb, { minLength: 6, maxLength: 6 }),
        scheduleArb,
        async (seed, configs, schedule) => {
          const sim = makeSim(sql, seed);
          const pairs = names.flatMap((from) => names.filter((to) => to !== from).map((to) => [from, to] as const));
          pairs.forEach(([from, to], i) => sim.network.configure(from, to, configs[i] ?? {}));
          const log: Received[] = [];
          for (const name of names) sim.spawn(name, recordingReceiver(log, ackHalf));
          const sent = new Map<string, { from: string; to: string; atMs: number }>();
          schedule.forEach(([atMs, action], i) => {
            if (action.verb === 'send') {
              const payload = `${action.from}>${action.to}#${i}`;
              sendIfRunningAt(sim, atMs, action.from, action.to, payload, () => sent.set(payload, { ...action, atMs }));
            } else if (action.verb === 'kill') {
              sim.at(atMs, () => {
                if (sim.kill(action.name)) sim.restart(action.name, action.restartDelayMs);
              });
            } else {
              sim.at(atMs, () => sim.network[action.verb](action.a, action.b));
            }
          });

          const summary = await sim.run();
          sim.dispose();
          expect(summary.crashes).toBe(0);

          for (const receipt of log) {
            const origin = sent.get(receipt.payload);
            expect(origin, `delivered ${receipt.payload}, which was never sent`).toBeDefined();
            expect(receipt.from).toBe(origin?.from);
            expect(receipt.to).toBe(origin?.to);
            expect(receipt.atMs).toBeGreaterThanOrEqual(origin?.atMs ?? Number.POSITIVE_INFINITY);
          }

          const sends = new Map(eventsOfKind(sim, 'net.send').map((event) => [numberField(event, 'id'), event]));
          const resends = new Map<number, number>();
          for (const event of eventsOfKind(sim, 'net.resend')) {
            const id = numberField(event, 'id');
            resends.set(id, (resends.get(id) ?? 0) + 1);
          }
          const delivered = new Map<number, number>();
          const arrivals = [...eventsOfKind(sim, 'net.deliver'), ...eventsOfKind(sim, 'net.duplicate')];
          for (const event of arrivals) {
            const id = numberField(event, 'id');
            const send = sends.get(id);
            expect(send, `net delivery of id ${id} without a send`).toBeDefined();
            expect(send?.index).toBeLessThan(event.index);
            expect(event.fields.from).toBe(send?.fields.from);
            expect(event.fields.to).toBe(send?.fields.to);
            if (event.kind === 'net.deliver') delivered.set(id, (delivered.get(id) ?? 0) + 1);
          }
          // Only a resend after a reconnect may deliver the same message (not as a duplicate) more than once.
          for (const [id, count] of delivered) expect(count).toBeLessThanOrEqual(1 + (resends.get(id) ?? 0));
          expect(log.length).toBeLessThanOrEqual(arrivals.length);
        },
      ),
      { numRuns: 120 },
    );
  });
});

describe('a link without reorder is FIFO', () => {
  it('delivers in send order whatever the delays and send times, and loses nothing without faults', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(100),
        fc.nat(1_000),
        fc.array(fc.nat(2_000), { minLength: 1, maxLength: 150 }),
        async (seed, delayMsMin, delayMsSpan, sendTimes) => {
          const sim = makeSim(sql, seed);
          sim.network.configure('a', 'b', { delayMsMin, delayMsMax: delayMsMin + delayMsSpan, reorder: false });
          const log = spawnSenderAndReceiver(sim, ackHalf);
          const sorted = sendTimes.slice().sort((x, y) => x - y);
          sorted.forEach((atMs, i) => sendAt(sim, atMs, 'a', 'b', String(i)));
          await sim.run();
          sim.dispose();
          expect(log.map((receipt) => Number(receipt.payload))).toEqual(sorted.map((_, i) => i));
          log.forEach((receipt, i) => {
            expect(receipt.atMs).toBeGreaterThanOrEqual((sorted[i] as number) + delayMsMin);
            expect(receipt.atMs).toBeLessThanOrEqual(Math.max(...sorted) + delayMsMin + delayMsSpan);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps the survivors in order when messages are dropped', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 700 }),
        fc.nat(500),
        fc.array(fc.nat(2_000), { minLength: 1, maxLength: 150 }),
        async (seed, dropPer1000, delayMsSpan, sendTimes) => {
          const sim = makeSim(sql, seed);
          sim.network.configure('a', 'b', { delayMsMin: 1, delayMsMax: 1 + delayMsSpan, dropPer1000, reorder: false });
          const log = spawnSenderAndReceiver(sim, ackHalf);
          sendTimes.slice().sort((x, y) => x - y).forEach((atMs, i) => sendAt(sim, atMs, 'a', 'b', String(i)));
          await sim.run();
          sim.dispose();
          const indices = log.map((receipt) => Number(receipt.payload));
          for (let i = 1; i < indices.length; i++) expect(indices[i]).toBeGreaterThan(indices[i - 1] as number);
          expect(indices.length + eventsOfKind(sim, 'net.drop').length).toBe(sendTimes.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('(control) a link with reorder does deliver out of order, so the FIFO check can fail', async () => {
    let outOfOrderRuns = 0;
    for (let run = 0; run < 5; run++) {
      const sim = makeSim(sql, `reorder-${run}`);
      sim.network.configure('a', 'b', { delayMsMin: 1, delayMsMax: 500, reorder: true });
      const log = spawnSenderAndReceiver(sim, ackHalf);
      for (let i = 0; i < 30; i++) sendAt(sim, 10 + i, 'a', 'b', String(i));
      await sim.run();
      sim.dispose();
      const indices = log.map((receipt) => Number(receipt.payload));
      expect(indices.slice().sort((x, y) => x - y)).toEqual(indices.map((_, i) => i));
      if (indices.some((value, i) => value !== i)) outOfOrderRuns++;
    }
    expect(outOfOrderRuns).toBeGreaterThan(0);
  });
});

describe('drop and duplicate faults', () => {
  async function runLink(config: Partial<LinkConfig>, count: number, seed: string): Promise<[Simulation, Received[]]> {
    const sim = makeSim(sql, seed);
    sim.network.configure('a', 'b', config);
    const log = spawnSenderAndReceiver(sim, ackHalf);
    for (let i = 0; i < count; i++) sendAt(sim, 1 + i, 'a', 'b', String(i));
    await sim.run();
    sim.dispose();
    return [sim, log];
  }

  it('drops everything at 1000 per 1000, nothing at 0, and about a quarter at 250', async () => {
    const [allSim, all] = await runLink({ dropPer1000: 1000 }, 200, 'drop-all');
    expect(all).toHaveLength(0);
    const drops = eventsOfKind(allSim, 'net.drop');
    expect(drops).toHaveLength(200);
    expect(drops.every((event) => event.fields.reason === 'fault')).toBe(true);

    const [, none] = await runLink({ dropPer1000: 0 }, 200, 'drop-none');
    expect(none).toHaveLength(200);

    const [, some] = await runLink({ dropPer1000: 250 }, 4_000, 'drop-quarter');
    // Expected 3,000 survivors with a standard deviation of about 27.
    expect(some.length).toBeGreaterThan(2_850);
    expect(some.length).toBeLessThan(3_150);
  });

  it('duplicates every message at 1000 per 1000: the replay arrives after the original, within the bound', async () => {
    const [sim, log] = await runLink({ duplicatePer1000: 1000, duplicateDelayMsMax: 300 }, 100, 'dup-all');
    expect(log).toHaveLength(200);
    const original = new Map(eventsOfKind(sim, 'net.deliver').map((event) => [numberField(event, 'id'), event]));
    const replays = eventsOfKind(sim, 'net.duplicate');
    expect(original.size).toBe(100);
    expect(replays).toHaveLength(100);
    for (const replay of replays) {
      const first = original.get(numberField(replay, 'id'));
      expect(first).toBeDefined();
      expect(replay.timeMs).toBeGreaterThan(first?.timeMs ?? Number.POSITIVE_INFINITY);
      expect(replay.timeMs).toBeLessThanOrEqual((first?.timeMs ?? 0) + 300);
    }
    const counts = new Map<string, number>();
    for (const receipt of log) counts.set(receipt.payload, (counts.get(receipt.payload) ?? 0) + 1);
    expect([...counts.values()].every((count) => count === 2)).toBe(true);
  });

  it('never duplicates at 0 per 1000', async () => {
    const [sim, log] = await runLink({ duplicatePer1000: 0 }, 300, 'dup-none');
    expect(log).toHaveLength(300);
    expect(eventsOfKind(sim, 'net.duplicate')).toHaveLength(0);
  });
});

describe('sender identity', () => {
  it('labels a delivery with the sending endpoint', async () => {
    const sim = makeSim(sql, 'identity');
    const log: Received[] = [];
    sim.spawn('a', idleMain);
    sim.spawn('c', idleMain);
    sim.spawn('b', recordingReceiver(log, ackHalf));
    sendAt(sim, 1, 'a', 'b', 'from-a');
    sendAt(sim, 1, 'c', 'b', 'from-c');
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => [receipt.payload, receipt.from]).sort()).toEqual([
      ['from-a', 'a'],
      ['from-c', 'c'],
    ]);
  });
});
