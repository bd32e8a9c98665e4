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

/**
 * A pool of `workers` threads. Each thread loads fuzz-worker.ts; TypeScript is loaded by tsx, whose loader the
 * threads inherit from this process's flags (`tsx sim/cli/main.ts`, or `node --import tsx`); when this process
 * was not started through tsx, the threads are given `--import tsx` themselves.
 */
export function poolExecutor(workers: number): Executor {
  const viaTsx = process.execArgv.some((flag) => flag.includes('tsx'));
  const pool = new Piscina({
    // The worker module sits beside this one: fuzz-worker.ts from source, fuzz-worker.js in the built package.
    filename: new URL(import.meta.url.endsWith('.ts') ? './fuzz-worker.ts' : './fuzz-worker.js', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: Number.POSITIVE_INFINITY,
    ...(viaTsx ? {} : { execArgv: [...process.execArgv, '--import', 'tsx'] }),
  });
  return {
    workers,
    run: (task) => pool.run(task) as Promise<RunReport>,
    shrink: (task) => pool.run(task) as Promise<ShrinkReport>,
    close: () => pool.destroy(),
  };
}
