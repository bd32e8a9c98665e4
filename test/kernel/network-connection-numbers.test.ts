// Each pair of endpoints joined by a reconnecting link has a connection number, shared by both directions (one
// WebSocket carries both): a new one whenever the connection dies and is made again (a reset, a kill of either end, a
// heal of a partition), never otherwise; a delivery names the connection it came over (a plain link names none), and a
// process can ask for its current connection with a peer. The numbers draw nothing from the PRNG and add nothing to the
// trace: the same run with and without asking has the same trace hash.
import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { idleMain, makeSim, sendAt } from './support.ts';

const sql = await loadSqlJs();

async function run(ask: boolean): Promise<{ deliveries: { payload: unknown; connection: number | undefined }[]; asked: number[]; hash: string }> {
  const sim = makeSim(sql, 'connection-numbers');
  sim.network.configure('a', 'b', { reconnecting: true, reconnectDelayMs: 100 });
  sim.network.configure('b', 'a', { reconnecting: true, reconnectDelayMs: 100 });
  sim.network.configure('a', 'c', {});
  const deliveries: { payload: unknown; connection: number | undefined }[] = [];
  const asked: number[] = [];
  sim.spawn('a', idleMain);
  sim.spawn('c', async (ctx) => {
    for (;;) {
      const delivery: Delivery = await ctx.net.receive();
      deliveries.push({ payload: delivery.payload, connection: delivery.connection });
    }
  });
  sim.spawn('b', async (ctx) => {
    for (;;) {
      const delivery: Delivery = await ctx.net.receive();
      delivery.ack();
      deliveries.push({ payload: delivery.payload, connection: delivery.connection });
      if (ask) asked.push(ctx.net.connection?.('a') ?? -1);
    }
  });
  sendAt(sim, 10, 'a', 'b', 'm0');
  sendAt(sim, 20, 'a', 'c', 'plain');
  sim.at(100, () => sim.network.reset('a', 'b'));
  sendAt(sim, 300, 'a', 'b', 'm1');
  sim.at(400, () => {
    sim.kill('b');
    sim.restart('b', 50);
  });
  sendAt(sim, 700, 'a', 'b', 'm2');
  sim.at(800, () => sim.network.partition('a', 'b'));
  sim.at(900, () => sim.network.heal('a', 'b'));
  sendAt(sim, 1_200, 'a', 'b', 'm3');
  // A heal of links that were not partitioned, and the plain link's traffic, make no new connection.
  sim.at(1_300, () => sim.network.heal('a', 'b'));
  sendAt(sim, 1_400, 'a', 'b', 'm4');
  await sim.run();
  const hash = sim.trace.hash;
  sim.dispose();
  return { deliveries, asked, hash };
}

describe('connection numbers', () => {
  it('a new number at each reset, kill and heal, both directions alike; a plain link names none', async () => {
    const { deliveries, asked } = await run(true);
    expect(deliveries).toEqual([
      { payload: 'm0', connection: 0 },
      { payload: 'plain', connection: undefined },
      { payload: 'm1', connection: 1 },
      { payload: 'm2', connection: 2 },
      { payload: 'm3', connection: 3 },
      { payload: 'm4', connection: 3 },
    ]);
    expect(asked).toEqual([0, 1, 2, 3, 3]);
  });

  it('asking adds nothing to the trace', async () => {
    expect((await run(true)).hash).toBe((await run(false)).hash);
  });
});
