// A worker thread of a fuzz campaign (piscina loads this module in each thread): before its first task it loads the
// modules the command line loaded (--load), so the thread registers the same scenarios and invariants as the main
// thread; then it does fuzz tasks one at a time with its own sql.js engine, loaded once per thread.
import { workerData } from 'node:worker_threads';
import type { SqlJsStatic } from 'sql.js';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { doTask, type FuzzTask, type RunReport, type ShrinkReport } from './fuzz-task.ts';
import { loadModules } from './load.ts';
import type { WorkerSetup } from './pool.ts';

let ready: Promise<SqlJsStatic> | undefined;

async function prepare(setup: WorkerSetup | undefined): Promise<SqlJsStatic> {
  if (setup !== undefined) await loadModules(setup.loads, setup.cwd);
  return loadSqlJs();
}

export default async function work(task: FuzzTask): Promise<RunReport | ShrinkReport> {
  ready ??= prepare(workerData as WorkerSetup | undefined);
  return doTask(task, await ready);
}
