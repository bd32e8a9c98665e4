// The session write lock of a pinned OpenClaw release (`acquireSessionWriteLock`, region src/agents/session-write-lock.ts:
// 2026.4.24 dist/session-write-lock-CAy2l2rJ.js, 2026.7.1 dist/session-write-lock-BZ_4P1vk.js over @openclaw/fs-safe's
// sidecar lock, dist/sidecar-lock-CyPvXk-D.js) in place of the model's (src/session-write-lock.ts), for both of its
// callers: the runner's run attempt (src/turn.ts) and the gateway's delivery mirror (src/delivery-mirror.ts), behind
// src/environment.ts GatewayParts.sessionWriteLock. Each incarnation of each process runs the release's code in its
// own instance (the held-lock map, the cleanup handlers and the watchdog are the process's), on the simulated disk
// (binding.ts simulatedDiskFsPromises: the lock file is created empty with `wx` and its payload written through the
// handle), the simulated process table (`process.kill(pid, 0)`, `/proc/<pid>/stat|status|cmdline`) and simulated time
// (the retry sleeps, 2026.7.1's setImmediate yields, the 60 s watchdog setInterval).
//
// What each caller passes, as the release's own callers do:
// - the run attempt, 2026.4.24 (dist/selection-C3otDzGD.js, region src/agents/pi-embedded-runner/run/attempt.ts):
//   `{ sessionFile, maxHoldMs: resolveSessionLockMaxHoldFromTimeout({ timeoutMs: runTimeout + compactionTimeout }) }`,
//   with the default agent timeout (2,880 min, dist/timeout-TgWmyBUs.js) and compaction timeout (900 s,
//   EMBEDDED_COMPACTION_TIMEOUT_MS in dist/wait-for-idle-before-flush-CkZJsBmY.js): the timeout is the lock's 10 s;
// - the run attempt, 2026.7.1 (dist/selection-8ixiqbew.js, resolveEmbeddedAttemptSessionWriteLockOptions):
//   `resolveSessionWriteLockOptions(config, { maxHoldMsFallback: resolveSessionLockMaxHoldFromTimeout({ timeoutMs:
//   compactionTimeout }) })` with the 180 s compaction timeout (dist/diagnostic-BHCP1NDL.js): 60 s timeout, 30 min
//   stale, 5 min max hold;
// - the delivery mirror: 2026.7.1 appends under `withSessionTranscriptWriteLock` (dist/session-accessor-B4Nfa9CN.js:
//   `resolveSessionWriteLockOptions(config)` and `allowReentrant: true`); 2026.4.24's mirror append
//   (`appendExactAssistantMessageToSessionTranscript`, dist/transcript-C5WPUIcy.js) takes no lock at all, so the
//   model's mirror (which locks, as PR #21828 asks) calls the release's lock with its defaults (`{ sessionFile }`).
// At each start the gateway sweeps its sessions directory for stale lock files (`cleanStaleLockFiles`): 2026.4.24 in
// `startGatewaySidecars` (dist/server.impl-CtLS1ywt.js, `staleMs: SESSION_LOCK_STALE_MS` = 30 min, `removeStale: true`),
// 2026.7.1 after the gateway is ready (dist/server-startup-post-attach-kqdikNBd.js, `cleanupStaleSessionLocks` with the
// config, `removeStale: true`). The adapter of the gateway's lock runs it once per gateway incarnation, over the
// directory the model keeps its transcripts in (OpenClaw sweeps each agent's sessions directory, where its transcripts
// are); what it removes is noted as a reclaim. (What 2026.7.1 does next with a cleaned lock, marking the main session's
// run as aborted by the restart, is another component and is not run.)
// The config is the simulated install's (no `session.writeLock`), the environment the binding's (no
// OPENCLAW_SESSION_WRITE_LOCK_* variables). The release's SessionWriteLockTimeoutError and (2026.7.1)
// SessionWriteLockStaleError are read as the model's SessionWriteLockError; any other error is the release's own and
// goes up as it is.
import type { ProcessContext } from '../../../src/ports.ts';
import { type SessionWriteLock, SessionWriteLockError, type SessionWriteLockPort } from '../../../src/session-write-lock.ts';
import { componentSource } from './components.ts';
import type { OpenclawInstance } from './instance.ts';
import type { OpenclawRelease } from './releases.ts';

export type WriteLockCaller = 'run-attempt' | 'delivery-mirror';

/** The release's lock, as its function returns it. */
interface RealLock {
  release(): Promise<void>;
}

type RealAcquire = (params: Record<string, unknown>) => Promise<RealLock>;

/** The release's error codes for a lock it could not take. */
export const realLockErrorCodes = ['OPENCLAW_SESSION_WRITE_LOCK_TIMEOUT', 'OPENCLAW_SESSION_WRITE_LOCK_STALE'] as const;

/** The run timeout and compaction timeout each release's run attempt derives its max hold from (header). */
const runAttemptTimeouts: Readonly<Partial<Record<OpenclawRelease, { runTimeoutMs: number; compactionTimeoutMs: number }>>> = {
  '2026.4.24': { runTimeoutMs: 2_880 * 60_000, compactionTimeoutMs: 900_000 },
  '2026.7.1': { runTimeoutMs: 2_880 * 60_000, compactionTimeoutMs: 180_000 },
  '2026.7.35': { runTimeoutMs: 2_880 * 60_000, compactionTimeoutMs: 180_000 },
};

/** The parameters the release's own caller passes besides the session file (header). */
export function lockParamsOf(instance: OpenclawInstance, caller: WriteLockCaller): Record<string, unknown> {
  const { sourceFile } = componentSource('session-write-lock', instance.release);
  const maxHoldFromTimeout = instance.function<(params: { timeoutMs: number }) => number>(sourceFile, 'resolveSessionLockMaxHoldFromTimeout');
  const timeouts = runAttemptTimeouts[instance.release];
  if (timeouts === undefined) throw new Error(`gatesim: openclaw ${instance.release}'s session write lock is a no-op stub (choice.ts): nothing to take`);
  if (instance.release === '2026.4.24') {
    return caller === 'run-attempt' ? { maxHoldMs: maxHoldFromTimeout({ timeoutMs: timeouts.runTimeoutMs + timeouts.compactionTimeoutMs }) } : {};
  }
  const options = instance.function<(config: unknown, params?: { maxHoldMsFallback?: number }) => Record<string, number>>(sourceFile, 'resolveSessionWriteLockOptions');
  if (caller === 'run-attempt') return { ...options(undefined, { maxHoldMsFallback: maxHoldFromTimeout({ timeoutMs: timeouts.compactionTimeoutMs }) }) };
  return { ...options(undefined), allowReentrant: true };
}

/** Whether an error is the release's "could not take the lock" (timeout, or 2026.7.1's stale lock it may not remove). */
export function isRealLockError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (realLockErrorCodes as readonly unknown[]).includes(code);
}

/** The sweep's arguments besides the directory, as each release's gateway start passes them (header). */
function sweepParamsOf(release: OpenclawRelease): Record<string, unknown> {
  return release === '2026.4.24' ? { staleMs: 1_800_000, removeStale: true } : { config: {}, removeStale: true };
}

interface SweepResult {
  cleaned: { lockPath: string; pid: number | null; staleReasons: string[] }[];
}

/** The gateway's sweep of `sessionsDir` at its start, in the instance of its incarnation (header). */
export async function sweepStaleLocks(instance: OpenclawInstance, ctx: ProcessContext, sessionsDir: string): Promise<void> {
  const { sourceFile } = componentSource('session-write-lock', instance.release);
  const clean = instance.function<(params: Record<string, unknown>) => Promise<SweepResult>>(sourceFile, 'cleanStaleLockFiles');
  const warnings: string[] = [];
  const result = await clean({ sessionsDir, ...sweepParamsOf(instance.release), log: { warn: (message: string) => warnings.push(message) } });
  for (const lock of result.cleaned) ctx.note('session-lock-reclaimed', { path: lock.lockPath.replace(/\.lock$/, ''), holder: lock.pid, reasons: lock.staleReasons.join(','), sweep: true, real: true });
}

/** The release's lock for one incarnation of one caller; `instance` is made (or shared) at the first acquire. */
export class RealSessionWriteLock implements SessionWriteLockPort {
  private acquireFn: RealAcquire | undefined;
  private params: Record<string, unknown> | undefined;

  constructor(
    private readonly instance: () => OpenclawInstance,
    private readonly ctx: ProcessContext,
    private readonly caller: WriteLockCaller,
  ) {}

  async acquire(sessionFile: string): Promise<SessionWriteLock> {
    if (this.acquireFn === undefined) {
      const instance = this.instance();
      const { sourceFile } = componentSource('session-write-lock', instance.release);
      this.acquireFn = instance.function<RealAcquire>(sourceFile, 'acquireSessionWriteLock');
      this.params = lockParamsOf(instance, this.caller);
    }
    const askedAtMs = this.ctx.clock.nowMs();
    let lock: RealLock;
    try {
      lock = await this.acquireFn({ ...this.params, sessionFile });
    } catch (error) {
      if (!isRealLockError(error)) throw error;
      this.ctx.note('session-lock-timeout', { path: sessionFile, code: error.code, waitedMs: this.ctx.clock.nowMs() - askedAtMs, real: true });
      throw new SessionWriteLockError(error.message);
    }
    this.ctx.note('session-lock', { path: sessionFile, waitedMs: this.ctx.clock.nowMs() - askedAtMs, real: true });
    return { release: () => lock.release() };
  }
}
