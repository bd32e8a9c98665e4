// OpenClaw's session write lock (`src/agents/session-write-lock.ts`), which every writer of a session's JSONL
// transcript takes: the runner for each run attempt, the gateway's delivery mirror for each append. The lock is a
// file `<sessionFile>.lock` created exclusively ("wx") holding `{pid, createdAt}`. A contended lock is reclaimed
// (removed, then the create is tried again) when it is stale: its pid is dead, or it is older than staleMs (30 min);
// otherwise the caller waits min(1000, 50 * attempt) ms and tries again until timeoutMs (10 s) has passed, then fails
// with SessionWriteLockError ("session_busy"). A pid here is the holder's process incarnation id, unique on the
// machine, so a restarted process never mistakes its predecessor's lock for its own.
// One departure: the simulated disk keeps no mtime, so a lock file whose payload does not parse (a power loss dropped
// its unsynced content) counts as stale at once, where OpenClaw waits until the file's mtime is staleMs old.
//
// How a stale lock is removed (LockReclaimMode). OpenClaw 2026.4.24 reads the payload, judges it and removes the file
// (`unguarded`): two contenders that read one dead holder's payload can both remove, and the later remove takes the
// lock the earlier one created meanwhile, so both hold it (fuzz --all seed 202, docs/MODEL.md "The session write lock").
// 2026.7.1 reads the file again just before the remove ("remove-if-unchanged"), which narrows the window to one disk
// call. The fixed model (`claimed`) closes it: a contender that judged payload P stale first creates a claim file
// exclusively, `<lock>.reclaim-<P's id>-<generation>` holding its pid, reads the lock again and removes it only if it
// still holds P, then removes its claim. Only the holder of P (dead, or its release reads its own pid) and a claimant
// of P ever remove P, and a claim of a generation is taken only while no claimant of a lower one lives (a claim whose
// holder is dead is left behind and the next generation is tried; a live claimant's is waited for), so at most one
// live process can remove P and the removal never takes a lock created after P was judged.
import { assert } from './assert.ts';
import type { ProcessContext } from './ports.ts';

export const sessionWriteLockTimeoutMs = 10_000;
export const sessionWriteLockStaleMs = 30 * 60_000;
/** The retry delay grows by this much per attempt, up to sessionWriteLockRetryMsMax (OpenClaw's loop). */
const retryStepMs = 50;
const sessionWriteLockRetryMsMax = 1_000;
/** A bound on the loop besides the timeout (a reclaim or a release in between retries at once). */
const attemptsMax = 1_000;

/** How a stale lock is removed: `claimed` (fixed: under a claim, see above) or `unguarded` (OpenClaw 2026.4.24's, tests only). */
export const lockReclaimModes = ['claimed', 'unguarded'] as const;
export type LockReclaimMode = (typeof lockReclaimModes)[number];

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

/** The model's lock as a part of one incarnation, reclaiming stale locks as `reclaim` says. */
export function modelSessionWriteLock(ctx: ProcessContext, reclaim: LockReclaimMode): SessionWriteLockPort {
  return { acquire: (sessionFile) => acquireSessionWriteLock(ctx, sessionFile, { reclaim }) };
}

/** Take the lock on `sessionFile` for this incarnation, or throw SessionWriteLockError after timeoutMs. */
export async function acquireSessionWriteLock(ctx: ProcessContext, sessionFile: string, options: { timeoutMs?: number; reclaim?: LockReclaimMode } = {}): Promise<SessionWriteLock> {
  const timeoutMs = options.timeoutMs ?? sessionWriteLockTimeoutMs;
  const reclaim = options.reclaim ?? 'claimed';
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
      if (reclaim === 'unguarded') {
        ctx.note('session-lock-reclaimed', { path: sessionFile, holder: held?.pid ?? null });
        await ctx.disk.remove(lockPath);
        continue;
      }
      // Reclaimed (or found changed) under this process's claim: try again at once. Else another live claimant is at
      // it: wait as for a held lock (it removes the file or finds it changed).
      if (await reclaimUnderClaim(ctx, sessionFile, lockPath, text, held)) continue;
    }
    const leftMs = timeoutMs - (ctx.clock.nowMs() - startedAtMs);
    if (leftMs <= 0) break;
    await ctx.timers.sleep(Math.min(sessionWriteLockRetryMsMax, retryStepMs * attempt, leftMs));
  }
  ctx.note('session-lock-timeout', { path: sessionFile, timeoutMs });
  throw new SessionWriteLockError(`session file locked (timeout ${timeoutMs}ms): ${lockPath}`);
}

/**
 * The `claimed` reclaim of the stale payload `text` (see the head of this file). True when this process took a claim
 * and is done (the lock removed, or changed since it was judged); false when a live process holds the claim.
 */
async function reclaimUnderClaim(ctx: ProcessContext, sessionFile: string, lockPath: string, text: string, held: LockPayload | undefined): Promise<boolean> {
  const payloadId = held === undefined ? `unparsable${text.length}` : `${held.pid}-${held.createdAtMs}`;
  const claim = JSON.stringify({ pid: ctx.incarnation });
  for (let generation = 0; generation < attemptsMax; generation++) {
    const claimPath = `${lockPath}.reclaim-${payloadId}-${generation}`;
    if (await ctx.disk.createExclusive(claimPath, claim)) {
      const now = await ctx.disk.read(lockPath);
      if (now === text) {
        ctx.note('session-lock-reclaimed', { path: sessionFile, holder: held?.pid ?? null, generation });
        await ctx.disk.remove(lockPath);
      }
      await ctx.disk.remove(claimPath);
      return true;
    }
    const claimText = await ctx.disk.read(claimPath);
    // The claim was just removed (its holder is done): the lock has changed; look at it again.
    if (claimText === undefined) return true;
    // A claim whose content a power loss dropped was its dead holder's, like one whose holder is dead: the next generation.
    const claimant = parsePayload(claimText, false);
    if (claimant !== undefined && ctx.supervisor.isAlive(claimant.pid)) return false;
  }
  return false;
}

/** OpenClaw removes its lock file on release; one that was reclaimed meanwhile (and is another's now) is left alone. */
async function releaseIfOurs(ctx: ProcessContext, lockPath: string): Promise<void> {
  const held = parsePayload(await ctx.disk.read(lockPath));
  if (held?.pid !== ctx.incarnation) return;
  await ctx.disk.remove(lockPath);
}

function parsePayload(text: string | undefined, withTime = true): LockPayload | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockPayload>;
    if (typeof value.pid !== 'number') return undefined;
    if (!withTime) return { pid: value.pid, createdAtMs: 0 };
    return typeof value.createdAtMs === 'number' ? { pid: value.pid, createdAtMs: value.createdAtMs } : undefined;
  } catch {
    return undefined;
  }
}
