// Where fuzz tasks are done: in this thread (one worker), or in a pool of worker threads (piscina) when the user
// asks for more. Both give the same answers, because a task is a pure function of its data (fuzz-task.ts); the
// driver consumes answers in run order, so the number of workers changes only how long a campaign takes.
import { Piscina } from 'piscina';
import type { SqlJsStatic } from 'sql.js';
import { doTask, type FuzzTask, type RunReport, type ShrinkReport, type TaskRunOptions } from './fuzz-task.ts';

export interface Executor {
  readonly workers: number;
  run(task: FuzzTask & { kind: 'run' }): Promise<RunReport>;
  shrink(task: FuzzTask & { kind: 'shrink' }): Promise<ShrinkReport>;
  close(): Promise<void>;
}

export function inlineExecutor(sql: SqlJsStatic, runOptions: TaskRunOptions = {}): Executor {
  return {
    workers: 1,
    run: async (task) => (await doTask(task, sql, runOptions)) as RunReport,
    shrink: async (task) => (await doTask(task, sql, runOptions)) as ShrinkReport,
    close: async () => {},
  };
}

/** What a worker thread sets up before its first task: the modules the command line loaded, from its directory. */
export interface WorkerSetup {
  /** Module specifiers to import in order (paths already made absolute file URLs). */
  loads: readonly string[];
  cwd: string;
}

/**
 * A pool of `workers` threads. Each thread first loads the `setup` modules (the command line's --load), so it runs
 * exactly what this thread runs. From the TypeScript sources a thread starts at fuzz-worker-boot.mjs, which
 * registers tsx for itself; the built package starts at fuzz-worker.js and needs no tsx.
 */
export function poolExecutor(workers: number, setup: WorkerSetup = { loads: [], cwd: process.cwd() }): Executor {
  const pool = new Piscina({
    // The worker module sits beside this one.
    filename: new URL(import.meta.url.endsWith('.ts') ? './fuzz-worker-boot.mjs' : './fuzz-worker.js', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: Number.POSITIVE_INFINITY,
    workerData: setup,
  });
  return {
    workers,
    run: (task) => pool.run(task) as Promise<RunReport>,
    shrink: (task) => pool.run(task) as Promise<ShrinkReport>,
    close: () => pool.destroy(),
  };
}
