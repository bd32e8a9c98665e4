// A SIGKILL ends an incarnation: its timers never fire, its sleeps, pending receives, disk and SQL calls never
// resume, and a continuation that was already queued when it died finds every primitive inert (no send, no write,
// no timer, no note, no task).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext, ProcessMain, SqlDatabase } from '../../src/ports.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, makeSim, numberField } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);';

interface Action {
  incarnation: number;
  what: string;
  /** Trace length when the action ran: an action after a kill sees the kill's event in the trace. */
  traceLength: number;
}

describe('a killed incarnation never runs again', () => {
  it('its timer, sleep, pending receive, disk call and SQL call never resume', async () => {
    const sim = makeSim(sql, 'fenced');
    const actions: string[] = [];
    let firstDb: SqlDatabase | undefined;
    sim.spawn('peer', async () => {});
    sim.spawn('p', async (ctx) => {
      if (ctx.incarnation !== 2) {
        // The restarted incarnation only listens, so anything logged after the kill would be the old one's.
        for (;;) actions.push(`new received ${String((await ctx.net.receive()).payload)}`);
      }
      const db = await ctx.sqlite.open('/p.db', schema);
      ctx.timers.setTimer(100, () => actions.push('timer fired'));
      ctx.spawnTask('sleeper', async () => {
        await ctx.timers.sleep(100);
        actions.push('sleep resumed');
      });
      ctx.spawnTask('listener', async () => {
        const delivery = await ctx.net.receive();
        actions.push(`old received ${String(delivery.payload)}`);
      });
      ctx.spawnTask('disk', async () => {
        await ctx.timers.sleep(49);
        await ctx.disk.fsync('/never');
        actions.push('fsync resumed');
      });
      firstDb = db;
      actions.push('started');
    });
    // The fsync issued at 49 completes at 50, after the kill (which was scheduled first).
    sim.disk.faults = { ...sim.disk.faults, fsyncLatencyMsMax: 1 };
    sim.at(50, () => {
      // A query issued by the live incarnation in the same instant it dies.
      void firstDb?.query('SELECT 1').then(() => actions.push('query resumed'));
      sim.kill('p');
      sim.restart('p', 10);
    });
    sim.at(200, () => {
      const peer = sim.processes.current('peer');
      if (peer !== undefined) sim.network.send(peer, 'p', 'hello');
    });
    await sim.run();
    sim.dispose();
    expect(actions).toEqual(['started', 'new received hello']);
    expect(sim.scheduler.fencedSteps).toBeGreaterThanOrEqual(4);
  });

  it('with kills and restarts at random instants, no incarnation acts after its kill', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        // Kills start at 100 ms, by which time every first incarnation has acted, so the check below is never vacuous.
        fc.array(fc.tuple(fc.integer({ min: 100, max: 3_000 }), fc.nat(300)), { minLength: 1, maxLength: 8 }),
        async (seed, kills) => {
          const sim = makeSim(sql, seed, 5_000);
          const actions: Action[] = [];
          const act = (ctx: ProcessContext, what: string): void => {
            actions.push({ incarnation: ctx.incarnation, what, traceLength: sim.trace.length });
            ctx.note('act', { incarnation: ctx.incarnation, what });
          };
          const busy: ProcessMain = async (ctx) => {
            const db = await ctx.sqlite.open(`/${ctx.name}.db`, schema);
            ctx.spawnTask('inbox', async () => {
              for (;;) {
                const delivery = await ctx.net.receive();
                act(ctx, 'receive');
                delivery.ack();
              }
            });
            const tick = (): void => {
              act(ctx, 'timer');
              ctx.timers.setTimer(ctx.random.int(1, 50), tick);
            };
            ctx.timers.setTimer(1, tick);
            for (let round = 0; ; round++) {
              ctx.net.send(ctx.name === 'p' ? 'q' : 'p', `${ctx.name}:${round}`);
              await ctx.disk.append(`/${ctx.name}.log`, `${round}\n`);
              act(ctx, 'append');
              await db.run('INSERT INTO t(v) VALUES (?)', [String(round)]);
              act(ctx, 'sql');
              await ctx.timers.sleep(ctx.random.int(0, 40));
              act(ctx, 'sleep');
            }
          };
          sim.spawn('p', busy);
          sim.spawn('q', busy);
          for (const [atMs, restartDelayMs] of kills) {
            sim.at(atMs, () => {
              if (sim.kill('p')) sim.restart('p', restartDelayMs);
            });
          }
          await sim.run();
          sim.dispose();

          const killIndex = new Map(
            eventsOfKind(sim, 'proc.kill').map((event) => [numberField(event, 'incarnation'), event.index]),
          );
          expect(killIndex.size).toBeGreaterThan(0);
          for (const action of actions) {
            const index = killIndex.get(action.incarnation);
            if (index === undefined) continue;
            expect(action.traceLength, `${action.what} of #${action.incarnation}`).toBeLessThanOrEqual(index);
          }
          for (const note of eventsOfKind(sim, 'model.act')) {
            const index = killIndex.get(numberField(note, 'incarnation'));
            if (index !== undefined) expect(note.index).toBeLessThan(index);
          }
          // Every incarnation that was killed had been acting, so the check above was not vacuous.
          const actedBy = new Set(actions.map((action) => action.incarnation));
          expect([...killIndex.keys()].some((incarnation) => actedBy.has(incarnation))).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a continuation already queued at the kill', () => {
  /** Step until the next event is p's wake at 10 ms, pop it (queueing the continuation) and kill p before it runs. */
  async function killWithContinuationQueued(sim: Simulation): Promise<void> {
    while (sim.scheduler.peekTimeMs() !== 10) {
      expect(await sim.scheduler.step()).toBe(true);
    }
    const resumedBefore = sim.scheduler.resumed;
    expect(sim.scheduler.stepSync()).toBe(true);
    expect(sim.scheduler.resumed).toBeGreaterThan(resumedBefore);
    sim.kill('p');
    await sim.scheduler.settle();
    await sim.run();
  }

  it('runs, but finds send, disk, timers, notes, tasks and SQL inert', async () => {
    const sim = makeSim(sql, 'queued');
    const ran: string[] = [];
    const received: unknown[] = [];
    sim.spawn('q', async (ctx) => {
      for (;;) received.push((await ctx.net.receive()).payload);
    });
    sim.spawn('p', async (ctx) => {
      await ctx.timers.sleep(10);
      ran.push('continuation ran');
      ctx.net.send('q', 'from the dead');
      void ctx.disk.write('/dead', 'written by the dead');
      void ctx.disk.append('/dead.log', 'appended by the dead');
      ctx.timers.setTimer(1, () => ran.push('timer fired'));
      ctx.note('dead-note', {});
      ctx.spawnTask('dead-task', async () => {
        ran.push('task ran');
      });
      void ctx.sqlite.open('/dead.db', schema).then(() => ran.push('open resolved'));
      await ctx.timers.sleep(1);
      ran.push('slept after death');
    });
    await killWithContinuationQueued(sim);
    sim.dispose();
    expect(ran).toEqual(['continuation ran']);
    expect(received).toEqual([]);
    expect(sim.disk.paths()).toEqual([]);
    expect(sim.sqlite.paths()).toEqual([]);
    const killAt = eventsOfKind(sim, 'proc.kill')[0]?.index ?? -1;
    expect(killAt).toBeGreaterThanOrEqual(0);
    expect(sim.trace.events.slice(killAt + 1).map((event) => event.kind)).toEqual([]);
  });
});
