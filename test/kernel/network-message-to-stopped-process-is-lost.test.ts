// A message for an endpoint whose process is not running when it arrives is lost: a restarted process does not
// find it waiting. Messages that arrive after the restart reach the new incarnation.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import {
  eventsOfKind,
  idleMain,
  makeSim,
  type Received,
  receivedBy,
  sendAt,
  spawnSenderAndReceiver,
} from './support.ts';

const sql = await loadSqlJs();

describe('messages to a process that is not running', () => {
  it('are lost when the endpoint was never started', async () => {
    const sim = makeSim(sql, 'never-started');
    sim.spawn('a', idleMain);
    sendAt(sim, 1, 'a', 'b', 'nobody-home');
    await sim.run();
    sim.dispose();
    const drops = eventsOfKind(sim, 'net.drop');
    expect(drops.map((event) => event.fields.reason)).toEqual(['not-running']);
    expect(eventsOfKind(sim, 'net.deliver')).toHaveLength(0);
  });

  it('are lost while the endpoint is down, in flight or sent, and never reach the next incarnation', async () => {
    const sim = makeSim(sql, 'down');
    sim.network.configure('a', 'b', { delayMsMin: 50, delayMsMax: 50 });
    const log = spawnSenderAndReceiver(sim);
    sendAt(sim, 10, 'a', 'b', 'before-kill');
    sendAt(sim, 90, 'a', 'b', 'in-flight-at-kill');
    sim.at(100, () => {
      sim.kill('b');
      sim.restart('b', 200);
    });
    sendAt(sim, 150, 'a', 'b', 'sent-while-down');
    sendAt(sim, 400, 'a', 'b', 'after-restart');
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => receipt.payload)).toEqual(['before-kill', 'after-restart']);
    const [first, second] = log;
    expect(second?.incarnation).toBeGreaterThan(first?.incarnation ?? Number.POSITIVE_INFINITY);
    const drops = eventsOfKind(sim, 'net.drop');
    expect(drops.map((event) => [event.timeMs, event.fields.reason])).toEqual([
      [140, 'not-running'],
      [200, 'not-running'],
    ]);
  });

  it('are lost when the endpoint crashed by throwing', async () => {
    const sim = makeSim(sql, 'crashed');
    const log: Received[] = [];
    sim.spawn('a', idleMain);
    sim.spawn('b', async (ctx) => {
      const delivery = await ctx.net.receive();
      log.push(receivedBy(ctx, delivery));
      throw new Error('boom');
    });
    sendAt(sim, 10, 'a', 'b', 'first');
    sendAt(sim, 500, 'a', 'b', 'second');
    await sim.run();
    sim.dispose();
    expect(log.map((receipt) => receipt.payload)).toEqual(['first']);
    expect(sim.processes.crashes).toHaveLength(1);
    expect(eventsOfKind(sim, 'net.drop').map((event) => event.fields.reason)).toEqual(['not-running']);
  });
});
