// A restart starts a new incarnation that runs main again from scratch: its memory, its mailbox and its timers are
// new, while what the old incarnation synced to disk and committed to SQLite is still there.
import { describe, expect, it } from 'vitest';
import type { ProcessMain } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, incarnationOf, makeSim, numberField } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);';

describe('restart', () => {
  it('runs main again in a new incarnation with fresh memory', async () => {
    const sim = makeSim(sql, 'restart');
    const starts: { incarnation: number; countAtStart: number }[] = [];
    sim.spawn('p', async (ctx) => {
      const memory = { count: 0 };
      starts.push({ incarnation: ctx.incarnation, countAtStart: memory.count });
      for (;;) {
        memory.count++;
        await ctx.timers.sleep(10);
      }
    });
    sim.at(105, () => {
      sim.kill('p');
      sim.restart('p', 50);
    });
    sim.at(300, () => sim.kill('p'));
    await sim.run();
    sim.dispose();
    expect(starts).toHaveLength(2);
    expect(starts.every((start) => start.countAtStart === 0)).toBe(true);
    expect(starts[1]?.incarnation).toBeGreaterThan(starts[0]?.incarnation ?? Number.POSITIVE_INFINITY);
    const restart = eventsOfKind(sim, 'proc.restart');
    const restarted = restart.map((event) => [event.timeMs, numberField(event, 'incarnation')]);
    expect(restarted).toEqual([[155, starts[1]?.incarnation]]);
  });

  it('starts with an empty mailbox: messages the old incarnation had not received are gone', async () => {
    const sim = makeSim(sql, 'mailbox');
    const received: string[] = [];
    sim.spawn('sender', async () => {});
    sim.spawn('p', async (ctx) => {
      // Incarnation 1 is the sender, so p's first is 2: it receives nothing until long after its messages
      // arrived, and is killed before it does. Its successor (3) receives at once.
      if (ctx.incarnation === 2) await ctx.timers.sleep(10_000);
      for (;;) received.push(`${ctx.incarnation}:${String((await ctx.net.receive()).payload)}`);
    });
    for (const [atMs, payload] of [[10, 'queued-1'], [20, 'queued-2'], [500, 'fresh']] as const) {
      sim.at(atMs, () => sim.network.send(incarnationOf(sim, 'sender'), 'p', payload));
    }
    sim.at(100, () => {
      sim.kill('p');
      sim.restart('p', 1);
    });
    await sim.run();
    sim.dispose();
    expect(received).toEqual(['3:fresh']);
  });

  it('after a power loss keeps synced files and committed rows, and loses unsynced writes', async () => {
    const sim = makeSim(sql, 'durable');
    const seen: unknown[] = [];
    const main: ProcessMain = async (ctx) => {
      const db = await ctx.sqlite.open('/p/state.db', schema);
      if (ctx.incarnation > 1) {
        seen.push(await ctx.disk.read('/p/synced.log'), await ctx.disk.read('/p/volatile.log'));
        seen.push((await db.query('SELECT v FROM t ORDER BY id')).map((row) => row.v));
        return;
      }
      await ctx.disk.append('/p/synced.log', 'kept\n');
      await ctx.disk.fsync('/p/synced.log');
      await ctx.disk.append('/p/synced.log', 'lost\n');
      await ctx.disk.write('/p/volatile.log', 'lost');
      await db.transaction((tx) => {
        tx.run('INSERT INTO t(v) VALUES (?)', ['committed']);
      });
      await ctx.timers.sleep(1_000);
    };
    sim.spawn('p', main);
    sim.at(500, () => {
      sim.powerLoss(['p']);
      sim.restart('p', 10);
    });
    await sim.run();
    sim.dispose();
    expect(seen).toEqual(['kept\n', '', ['committed']]);
  });

  it('does nothing when the process is already running by then, and a kill of a dead process is a no-op', async () => {
    const sim = makeSim(sql, 'restart-running');
    let mains = 0;
    sim.spawn('p', async () => {
      mains++;
    });
    sim.at(10, () => sim.restart('p', 5));
    let secondKill: boolean | undefined;
    sim.at(100, () => {
      expect(sim.kill('p')).toBe(true);
      secondKill = sim.kill('p');
    });
    await sim.run();
    sim.dispose();
    expect(mains).toBe(1);
    expect(secondKill).toBe(false);
    expect(eventsOfKind(sim, 'proc.restart')).toHaveLength(0);
  });

  it('after a crash by exception, the process is down until restarted, then runs main again', async () => {
    const sim = makeSim(sql, 'crash-restart');
    const runs: number[] = [];
    sim.spawn('p', async (ctx) => {
      runs.push(ctx.incarnation);
      if (ctx.incarnation === 1) {
        await ctx.timers.sleep(5);
        throw new Error('model bug');
      }
    });
    let runningAfterCrash: boolean | undefined;
    sim.at(50, () => {
      runningAfterCrash = sim.processes.isRunning('p');
      sim.restart('p', 1);
    });
    await sim.run();
    sim.dispose();
    expect(runningAfterCrash).toBe(false);
    expect(runs).toEqual([1, 2]);
    expect(sim.processes.crashes.map((crash) => [crash.name, crash.timeMs])).toEqual([['p', 5]]);
    expect(eventsOfKind(sim, 'proc.exit')).toHaveLength(1);
  });
});
