// OpenClaw's session write lock (`src/agents/session-write-lock.ts`), which every writer of a session's JSONL
// transcript takes: the runner for each run attempt, the gateway's delivery mirror for each append. The lock is a
// file `<sessionFile>.lock` created exclusively ("wx") holding `{pid, createdAt}`. A contended lock is reclaimed
// (removed, then the create is tried again) when it is stale: its pid is dead, or it is older than staleMs (30 min);
// otherwise the caller waits min(1000, 50 * attempt) ms and tries again until timeoutMs (10 s) has passed, then fails
// with SessionWriteLockError ("session_busy"). A pid here is the holder's process incarnation id, unique on the
// machine, so a restarted process never mistakes its predecessor's lock for its own.
// One departure: the simulated disk keeps no mtime, so a lock file whose payload does not parse (a power loss dropped
// its unsynced content) counts as stale at once, where OpenClaw waits until the file's mtime is staleMs old.
import { assert } from './assert.ts';
import type { ProcessContext } from './ports.ts';

export const sessionWriteLockTimeoutMs = 10_000;
export const sessionWriteLockStaleMs = 30 * 60_000;
/** The retry delay grows by this much per attempt, up to sessionWriteLockRetryMsMax (OpenClaw's loop). */
const retryStepMs = 50;
const sessionWriteLockRetryMsMax = 1_000;
/** A bound on the loop besides the timeout (a reclaim or a release in between retries at once). */
const attemptsMax = 1_000;

export class SessionWriteLockError extends Error {
  override name = 'SessionWriteLockError';
  readonly reason = 'session_busy';
}

export interface SessionWriteLock {
  release(): Promise<void>;
}

/**
 * The session write lock as a part of one process incarnation (src/environment.ts GatewayParts.sessionWriteLock): a
 * real release's in place of acquireSessionWriteLock below (sim/real). It throws SessionWriteLockError where the lock
 * could not be taken (the release's timeout, or a stale lock it may not remove).
 */
export interface SessionWriteLockPort {
  acquire(sessionFile: string): Promise<SessionWriteLock>;
}

interface LockPayload {
  pid: number;
  createdAtMs: number;
}

export function lockPathOf(sessionFile: string): string {
  return `${sessionFile}.lock`;
}

/** Take the lock on `sessionFile` for this incarnation, or throw SessionWriteLockError after timeoutMs. */
export async function acquireSessionWriteLock(ctx: ProcessContext, sessionFile: string, timeoutMs = sessionWriteLockTimeoutMs): Promise<SessionWriteLock> {
  const lockPath = lockPathOf(sessionFile);
  const startedAtMs = ctx.clock.nowMs();
  for (let attempt = 1; attempt <= attemptsMax && ctx.clock.nowMs() - startedAtMs < timeoutMs; attempt++) {
    const payload: LockPayload = { pid: ctx.incarnation, createdAtMs: ctx.clock.nowMs() };
    assert(payload.pid === ctx.incarnation, 'a lock names its holder');
    if (await ctx.disk.createExclusive(lockPath, JSON.stringify(payload))) {
      ctx.note('session-lock', { path: sessionFile, attempt });
      return { release: () => releaseIfOurs(ctx, lockPath) };
    }
    const text = await ctx.disk.read(lockPath);
    // Released between the create and the read: try again at once.
    if (text === undefined) continue;
    const held = parsePayload(text);
    const stale = held === undefined || !ctx.supervisor.isAlive(held.pid) || ctx.clock.nowMs() - held.createdAtMs > sessionWriteLockStaleMs;
    if (stale) {
      ctx.note('session-lock-reclaimed', { path: sessionFile, holder: held?.pid ?? null });
      await ctx.disk.remove(lockPath);
      continue;
    }
    const leftMs = timeoutMs - (ctx.clock.nowMs() - startedAtMs);
    if (leftMs <= 0) break;
    await ctx.timers.sleep(Math.min(sessionWriteLockRetryMsMax, retryStepMs * attempt, leftMs));
  }
  ctx.note('session-lock-timeout', { path: sessionFile, timeoutMs });
  throw new SessionWriteLockError(`session file locked (timeout ${timeoutMs}ms): ${lockPath}`);
}

/** OpenClaw removes its lock file on release; one that was reclaimed meanwhile (and is another's now) is left alone. */
async function releaseIfOurs(ctx: ProcessContext, lockPath: string): Promise<void> {
  const held = parsePayload(await ctx.disk.read(lockPath));
  if (held?.pid !== ctx.incarnation) return;
  await ctx.disk.remove(lockPath);
}

function parsePayload(text: string | undefined): LockPayload | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockPayload>;
    return typeof value.pid === 'number' && typeof value.createdAtMs === 'number' ? { pid: value.pid, createdAtMs: value.createdAtMs } : undefined;
  } catch {
    return undefined;
  }
}
