// A workload that exercises every part of the kernel at once: a few processes exchanging messages over plain and
// reconnecting links under every network fault, appending to files and fsyncing them, writing SQLite rows in
// transactions with the busy fault on, and being SIGKILLed and restarted. `npm start` runs it (until the fuzzer
// replaces it) and the determinism tests run it for a thousand seeds.
import type { ProcessContext } from '../../src/ports.ts';
import { SqliteBusyError } from '../../src/ports.ts';
import type { SqlJsStatic } from 'sql.js';
import { type RunSummary, Simulation } from './simulation.ts';

const peers = ['alpha', 'beta', 'gamma'] as const;
const schema = 'CREATE TABLE log(id INTEGER PRIMARY KEY, peer TEXT, body TEXT, at INTEGER);';

export interface KernelWorkloadOptions {
  seed: string;
  sql: SqlJsStatic;
  simTimeMs?: number;
  keepTrace?: boolean;
  /** Test hook: lets a test inject nondeterminism to prove the divergence finder works. */
  perturb?: (ctx: ProcessContext, round: number) => void;
}

export interface KernelWorkloadResult extends RunSummary {
  sim: Simulation;
}

async function peer(ctx: ProcessContext, perturb: KernelWorkloadOptions['perturb']): Promise<void> {
  const db = await ctx.sqlite.open(`/data/${ctx.name}.db`, schema);
  const file = `/data/${ctx.name}.log`;
  ctx.spawnTask('inbox', async () => {
    for (;;) {
      const delivery = await ctx.net.receive();
      await ctx.disk.append(file, `${ctx.clock.nowMs()} from ${delivery.from}: ${String(delivery.payload)}\n`);
      delivery.ack();
    }
  });
  for (let round = 0; round < 1_000; round++) {
    perturb?.(ctx, round);
    const to = ctx.random.pick(peers.filter((name) => name !== ctx.name));
    ctx.net.send(to, `${ctx.name}#${ctx.incarnation}:${round}`);
    try {
      await db.transaction((tx) => {
        tx.run('INSERT INTO log(peer, body, at) VALUES (?, ?, ?)', [ctx.name, `round ${round}`, ctx.clock.nowMs()]);
      });
    } catch (error) {
      if (!(error instanceof SqliteBusyError)) throw error;
      ctx.note('busy', { round });
    }
    if (ctx.random.chance(1, 4)) await ctx.disk.fsync(file);
    await ctx.timers.sleep(ctx.random.int(10, 400));
  }
}

/** Build and run the kernel workload for one seed. */
export async function runKernelWorkload(options: KernelWorkloadOptions): Promise<KernelWorkloadResult> {
  const simTimeMs = options.simTimeMs ?? 60_000;
  const sim = new Simulation({ seed: options.seed, sql: options.sql, simTimeMsMax: simTimeMs, keepTrace: options.keepTrace ?? false });
  const faults = sim.prng.fork('faults');
  sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 200, tearPer1000: 500 };
  sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 50 };
  for (const from of peers) {
    for (const to of peers) {
      if (from === to) continue;
      sim.network.configure(from, to, {
        delayMsMin: 1,
        delayMsMax: faults.int(5, 200),
        dropPer1000: faults.int(0, 50),
        duplicatePer1000: faults.int(0, 50),
        reorder: faults.chance(1, 2),
        reconnecting: faults.chance(1, 2),
        reconnectDelayMs: faults.int(100, 2_000),
      });
    }
  }
  for (const name of peers) sim.spawn(name, (ctx) => peer(ctx, options.perturb));
  for (let timeMs = faults.int(500, 3_000); timeMs < simTimeMs; timeMs += faults.int(500, 5_000)) {
    const a = faults.pick(peers);
    const b = faults.pick(peers.filter((name) => name !== a));
    const fault = faults.int(0, 4);
    const healMs = timeMs + faults.int(100, 3_000);
    if (fault === 0) {
      sim.at(timeMs, () => sim.kill(a));
      sim.at(timeMs, () => sim.restart(a, faults.int(0, 2_000)));
    } else if (fault === 1) {
      sim.at(timeMs, () => sim.network.partition(a, b));
      sim.at(healMs, () => sim.network.heal(a, b));
    } else if (fault === 2) {
      sim.at(timeMs, () => sim.network.hold(a, b));
      sim.at(healMs, () => sim.network.release(a, b));
    } else {
      sim.at(timeMs, () => sim.network.reset(a, b));
    }
  }
  const summary = await sim.run();
  return { ...summary, sim };
}
