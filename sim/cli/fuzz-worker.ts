// A worker thread of a fuzz campaign (piscina loads this module in each thread): it does fuzz tasks one at a time
// with its own sql.js engine, loaded once per thread.
import type { SqlJsStatic } from 'sql.js';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { doTask, type FuzzTask, type RunReport, type ShrinkReport } from './fuzz-task.ts';

let sql: Promise<SqlJsStatic> | undefined;

export default async function work(task: FuzzTask): Promise<RunReport | ShrinkReport> {
  sql ??= loadSqlJs();
  return doTask(task, await sql);
}
