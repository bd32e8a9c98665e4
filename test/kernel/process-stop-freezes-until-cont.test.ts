// SIGSTOP and SIGCONT (a slow process, the stall fault): a stopped incarnation makes no progress at all (its timers,
// the messages it waits for, its disk completions and SQL calls all wait), and on SIGCONT everything it missed resumes, in order,
// at the instant it continues; the world around it goes on meanwhile. A kill of a stopped process works as usual.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, makeSim } from './support.ts';

const sql = await loadSqlJs();

describe('stop and cont', () => {
  it('freeze timers, receives and disk completions until cont, then resume them in order', async () => {
    const sim = makeSim(sql, 'stop');
    const log: string[] = [];
    sim.spawn('p', async (ctx) => {
      ctx.spawnTask('timer', async () => {
        await ctx.timers.sleep(1_000);
        log.push(`timer ${ctx.clock.nowMs()}`);
      });
      ctx.spawnTask('disk', async () => {
        await ctx.timers.sleep(1_500);
        await ctx.disk.write('/f', 'x');
        log.push(`write ${ctx.clock.nowMs()}`);
      });
      const delivery = await ctx.net.receive();
      log.push(`receive ${String(delivery.payload)} ${ctx.clock.nowMs()}`);
    });
    sim.spawn('q', async (ctx) => {
      await ctx.timers.sleep(2_000);
      ctx.net.send('p', 'hello');
      await ctx.timers.sleep(100);
      log.push(`q goes on ${ctx.clock.nowMs()}`);
    });
    sim.at(500, () => expect(sim.stop('p')).toBe(true));
    sim.at(5_000, () => sim.cont('p'));
    await sim.run();
    sim.dispose();
    // Nothing of p ran between 500 ms and 5 s; q did. At 5 s p's timer, then its disk write (whose call was itself
    // waiting on the timer at 1.5 s) and the message resume; the write completes after its own latency.
    expect(log[0]).toMatch(/^q goes on 2\d\d\d$/);
    expect(log[1]).toBe('timer 5000');
    expect(log[2]).toBe('receive hello 5000');
    expect(log[3]).toMatch(/^write 500\d$/);
    expect(log).toHaveLength(4);
    expect(eventsOfKind(sim, 'proc.stop')).toHaveLength(1);
    expect(eventsOfKind(sim, 'proc.cont')[0]?.fields.deferred).toBeGreaterThan(0);
  });

  it('hold a SQL call in flight until cont: its statement runs then, and it resolves or rejects then', async () => {
    const sim = makeSim(sql, 'stop-sql');
    const log: string[] = [];
    const rowsAt = (): number => Number(sim.sqlite.inspect('/db/p.db', 'SELECT COUNT(*) AS n FROM t')[0]?.n);
    sim.spawn('p', async (ctx) => {
      const db = await ctx.sqlite.open('/db/p.db', 'CREATE TABLE t(v TEXT);');
      const write = db.run("INSERT INTO t(v) VALUES ('x')").then((result) => log.push(`write ${result.changes} ${ctx.clock.nowMs()}`));
      const bad = db.run('INSERT INTO missing(v) VALUES (1)').catch((error: Error) => log.push(`rejected ${ctx.clock.nowMs()} ${error.message}`));
      sim.stop('p');
      await Promise.all([write, bad]);
    });
    sim.at(1_000, () => log.push(`rows at 1000: ${rowsAt()}`));
    sim.at(5_000, () => sim.cont('p'));
    await sim.run();
    sim.dispose();
    expect(log).toEqual(['rows at 1000: 0', 'write 1 5000', 'rejected 5000 no such table: missing']);
  });

  it('a stopped process can be killed; its deferred work never runs and its successor starts afresh', async () => {
    const sim = makeSim(sql, 'stop-kill');
    const log: string[] = [];
    sim.spawn('p', async (ctx) => {
      if (ctx.incarnation > 1) {
        log.push(`restarted ${ctx.clock.nowMs()}`);
        return;
      }
      await ctx.timers.sleep(1_000);
      log.push('first timer');
    });
    sim.at(500, () => sim.stop('p'));
    sim.at(2_000, () => {
      sim.kill('p');
      sim.restart('p', 100);
    });
    sim.at(3_000, () => sim.cont('p'));
    await sim.run();
    sim.dispose();
    expect(log).toEqual(['restarted 2100']);
  });

  it('stop of a process that is not running, or already stopped, is refused', async () => {
    const sim = makeSim(sql, 'stop-refused');
    sim.spawn('p', async (ctx) => {
      await ctx.timers.sleep(10_000);
    });
    sim.at(1, () => {
      expect(sim.stop('nobody')).toBe(false);
      expect(sim.stop('p')).toBe(true);
      expect(sim.stop('p')).toBe(false);
      sim.cont('p');
    });
    await sim.run();
    sim.dispose();
  });
});
