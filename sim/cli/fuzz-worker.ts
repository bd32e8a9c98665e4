// A worker thread of a fuzz campaign (piscina loads this module in each thread): before its first task it loads the
// modules the command line loaded (--load), so the thread registers the same scenarios and invariants as the main
// thread; then it does fuzz tasks one at a time with its own sql.js engine, loaded once per thread. A shrink tells
// its progress on the port it is handed.
import { workerData } from 'node:worker_threads';
import type { SqlJsStatic } from 'sql.js';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { doTask, type RunReport, type ShrinkReport } from './fuzz-task.ts';
import { loadModules } from './load.ts';
import type { WorkerMessage, WorkerSetup } from './pool.ts';

let ready: Promise<SqlJsStatic> | undefined;

async function prepare(setup: WorkerSetup | undefined): Promise<SqlJsStatic> {
  if (setup !== undefined) await loadModules(setup.loads, setup.cwd);
  return loadSqlJs();
}

export default async function work(message: WorkerMessage): Promise<RunReport | ShrinkReport> {
  ready ??= prepare(workerData as WorkerSetup | undefined);
  const port = message.progress;
  try {
    return await doTask(message.task, await ready, {}, port === undefined ? undefined : (progress) => port.postMessage(progress));
  } finally {
    // The end of the progress: the pool waits for it, then closes the channel.
    port?.postMessage(null);
  }
}
