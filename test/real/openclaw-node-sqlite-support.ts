// Shared by the tests of the simulated node:sqlite (sim/real/openclaw-hooks/sqlite.mjs): a simulated disk and
// processes on it, each with the module a release's instance would get, without a release (the engine is this
// repository's own dependency, @sqlite.org/sqlite-wasm). A process is an incarnation that a test kills by hand; a power
// loss is the disk's.
import { createHash } from 'node:crypto';
import { simEpochMs } from '../../src/pi-format.ts';
import type { Incarnation } from '../../sim/kernel/process.ts';
import { Prng } from '../../sim/kernel/prng.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import type { BinaryFiles } from '../../sim/kernel/disk.ts';
import { loadSimulatedSqlite, simulatedNodeSqlite } from '../../sim/real/openclaw-hooks/sqlite.mjs';

export type NodeSqlite = ReturnType<typeof simulatedNodeSqlite>;

export interface SimulatedProcess {
  sqlite: NodeSqlite;
  owner: { alive: boolean };
  escapes: string[];
  kill(): void;
}

export interface SqliteWorld {
  sim: Simulation;
  /**
   * A new process on the disk (its own PRNG stream); `files` may wrap the disk's (a sabotage); `busyPer1000` is the
   * busy fault's rate.
   */
  process(name: string, files?: (own: BinaryFiles) => BinaryFiles, busyPer1000?: number): SimulatedProcess;
  dispose(): void;
}

export async function sqliteWorld(seed: string): Promise<SqliteWorld> {
  await loadSimulatedSqlite();
  const sim = new Simulation({ seed, sql: await loadSqlJs() });
  let next = 0;
  return {
    sim,
    process(name, files, busyPer1000) {
      const owner = { alive: true, id: ++next, name } as unknown as Incarnation;
      const prng = new Prng(`${seed}/${name}/${next}`);
      const escapes: string[] = [];
      const own = sim.disk.binaryFilesOf(owner);
      const binding = {
        epochNowMs: () => simEpochMs + sim.scheduler.clock.nowMs(),
        randomInt: (min: number, max: number) => prng.int(min, max),
        sqliteFiles: files === undefined ? own : files(own),
        ...(busyPer1000 === undefined ? {} : { sqliteBusyPer1000: busyPer1000 }),
      };
      const loud = Object.assign(
        (what: string) => {
          escapes.push(what);
          return new Error(`gatesim: ${what} is not simulated`);
        },
        { fn: (what: string) => () => {
          escapes.push(what);
          throw new Error(`gatesim: ${what} is not simulated`);
        } },
      );
      return {
        sqlite: simulatedNodeSqlite(binding, loud),
        owner,
        escapes,
        kill: () => {
          (owner as { alive: boolean }).alive = false;
        },
      };
    },
    dispose: () => sim.dispose(),
  };
}

export function sha256(bytes: Uint8Array | undefined): string {
  return createHash('sha256').update(bytes ?? new Uint8Array(0)).digest('hex').slice(0, 16);
}
