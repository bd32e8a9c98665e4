// Where fuzz tasks are done: in this thread (one worker), or in a pool of worker threads (piscina) when the user
// asks for more. Both give the same answers, because a task is a pure function of its data (fuzz-task.ts); the
// driver consumes answers in run order, so the number of workers changes only how long a campaign takes. A shrink's
// progress (for the progress lines only, never for its answer) comes back from a worker thread over a message port.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { SqlJsStatic } from 'sql.js';
import { doTask, type FuzzTask, type OnShrinkProgress, type RunReport, type ShrinkProgress, type ShrinkReport, type TaskRunOptions } from './fuzz-task.ts';

export interface Executor {
  readonly workers: number;
  run(task: FuzzTask & { kind: 'run' }): Promise<RunReport>;
  /** `onProgress` hears after each run of the shrink how far it got (on a worker thread, a little late). */
  shrink(task: FuzzTask & { kind: 'shrink' }, onProgress?: OnShrinkProgress): Promise<ShrinkReport>;
  close(): Promise<void>;
}

/** What a worker thread is handed: a task, and for a shrink, a port to tell its progress on. */
export interface WorkerMessage {
  task: FuzzTask;
  progress?: MessagePort;
}

export function inlineExecutor(sql: SqlJsStatic, runOptions: TaskRunOptions = {}): Executor {
  return {
    workers: 1,
    run: async (task) => (await doTask(task, sql, runOptions)) as RunReport,
    shrink: async (task, onProgress) => (await doTask(task, sql, runOptions, onProgress)) as ShrinkReport,
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
    run: (task) => pool.run({ task } satisfies WorkerMessage) as Promise<RunReport>,
    shrink: async (task, onProgress) => {
      if (onProgress === undefined) return (await pool.run({ task } satisfies WorkerMessage)) as ShrinkReport;
      const { port1, port2 } = new MessageChannel();
      // The worker ends its progress with null on the same port, so every run's progress is heard before the answer.
      const heard = new Promise<void>((resolve) => {
        port1.on('message', (progress: ShrinkProgress | null) => (progress === null ? resolve() : onProgress(progress)));
      });
      try {
        const report = (await pool.run({ task, progress: port2 } satisfies WorkerMessage, { transferList: [port2] })) as ShrinkReport;
        await heard;
        return report;
      } finally {
        port1.close();
      }
    },
    close: () => pool.destroy(),
  };
}

/**
 * One worker thread of its own, started at its first task: the determinism check (determinism-check.ts) replays runs
 * there, in a module state no run of the campaign touched (it loads the `setup` modules, and a real OpenClaw release or
 * the pi SessionManager, for itself). Closing it before its first task starts nothing.
 */
export function freshThreadExecutor(setup: WorkerSetup): Executor {
  let pool: Executor | undefined;
  const started = (): Executor => (pool ??= poolExecutor(1, setup));
  return {
    workers: 1,
    run: (task) => started().run(task),
    shrink: (task, onProgress) => started().shrink(task, onProgress),
    close: async () => {
      await pool?.close();
    },
  };
}
