// One gateway incarnation in a simulated machine, with a release-like instance world of the hooks bound to it (the
// simulated clock, timers, disk and process table, fixed randomness, the package view reading this repository's own
// files as a stand-in): for the tests of what the hooks give a release's code, with no openclaw/ workspace.
import { fileURLToPath } from 'node:url';
import { simEpochMs } from '../../src/pi-format.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { simulatedDiskFs } from '../../sim/real/openclaw/binding.ts';
import { openclawHome } from '../../sim/real/openclaw/home.ts';
import { createInstanceWorld, type HooksBinding } from '../../sim/real/openclaw-hooks.mjs';

export interface GatewayIncarnation {
  world: ReturnType<typeof createInstanceWorld>;
  /** What the instance reached that is not simulated. */
  escapes: string[];
  sim: Simulation;
  owner: NonNullable<ReturnType<Simulation['processes']['incarnation']>>;
}

/** Runs `body` in the first incarnation of a gateway of a fresh simulation (seed `seed`); rethrows what it threw. */
export async function inAGatewayIncarnation(seed: string, body: (gateway: GatewayIncarnation) => void): Promise<void> {
  const sim = new Simulation({ seed, sql: await loadSqlJs() });
  let failure: unknown;
  sim.spawn('gateway', (ctx) => {
    const owner = sim.processes.incarnation(ctx.incarnation);
    if (owner === undefined) throw new Error('no incarnation');
    const escapes: string[] = [];
    const binding: HooksBinding = {
      epochNowMs: () => simEpochMs + ctx.clock.nowMs(),
      monotonicMs: () => ctx.clock.nowMs(),
      setTimer: (delayMs, fn) => ctx.timers.setTimer(delayMs, fn),
      randomInt: () => 0,
      uuidV4: () => '00000000-0000-4000-8000-000000000000',
      alive: () => owner.alive,
      escaped: (what) => escapes.push(what),
      log: () => undefined,
      pid: 1001,
      ppid: 1,
      env: {},
      cwd: '/home/openclaw',
      home: '/home/openclaw',
      tmpdir: '/tmp',
      hostname: 'gatesim',
      packageRoot: '/gatesim/openclaw-test',
      packageHostDir: fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, ''),
      fs: simulatedDiskFs(sim.disk, owner, openclawHome()),
    };
    try {
      body({ world: createInstanceWorld(binding), escapes, sim, owner });
    } catch (error) {
      failure = error;
    }
    return Promise.resolve();
  });
  await sim.run();
  sim.dispose();
  if (failure !== undefined) throw failure;
}
