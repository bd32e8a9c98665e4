// Idle polling. nanoclaw's runner lanes (1 s idle) and its host's fast delivery poller (1 s) poll SQLite whether or
// not anything changed. A poll that finds nothing reads the same rows as the last one and writes nothing, so a host
// that can say when a database changed (the simulation; SQLite's PRAGMA data_version) lets the poller skip such
// polls: it resumes at the first instant of its poll schedule at or after the change, where its poll would first
// have seen it, and polls then. A host without it leaves the poller polling at its period.
import { assert } from './assert.ts';
import type { ProcessContext, SqlDatabase, WatchedDatabase } from './ports.ts';

/** `db` with the data version it has now (read before a poll of it), or undefined if the host has no versions. */
export function watch(db: SqlDatabase): WatchedDatabase | undefined {
  const version = db.dataVersion?.();
  return version === undefined ? undefined : { db, version };
}

/**
 * Wait for the next poll that can find something: one period when `watched` is undefined (a poll found work, or the
 * host has no versions), else until the first poll instant after one of `watched` changed or dueMs passed.
 */
export function idlePoll(ctx: ProcessContext, watched: readonly (WatchedDatabase | undefined)[] | undefined, intervalMs: number, dueMs?: number): Promise<void> {
  assert(intervalMs > 0, `a poller waits a positive interval, not ${intervalMs} ms`);
  if (watched === undefined || ctx.sqlite.idlePolls === undefined || watched.length === 0 || watched.some((entry) => entry === undefined)) return ctx.timers.sleep(intervalMs);
  return ctx.sqlite.idlePolls(watched as WatchedDatabase[], intervalMs, dueMs);
}
