// The session write lock of each pinned OpenClaw release (`acquireSessionWriteLock`, read in 2026.4.24
// dist/session-write-lock-CAy2l2rJ.js and 2026.7.1 dist/session-write-lock-BZ_4P1vk.js with dist/sidecar-lock-CyPvXk-D.js,
// region src/agents/session-write-lock.ts) against the model's (src/session-write-lock.ts), on the same generated
// cases, each in a simulated machine of its own: a holder process takes the lock, then a contender process of the other
// caller asks for it while the holder holds it and releases it (contention), is SIGKILLed (a dead holder), dies in a
// power loss before its payload was written back (a torn, empty lock file), or never lets go (a timeout). The real
// lock runs through the adapter a run uses (sim/real/openclaw/write-lock.ts, GatewayParts.sessionWriteLock), on the
// simulated disk, process table and clock, and nothing reaches the host.
//
// The model and each release agree on every case but the ones docs/MODEL.md names as differences of the releases
// ("The session write lock, real"), which the test states as its own reading of each release and checks on every
// case:
// - the acquire timeout: 10 s in the model and 2026.4.24, 60 s in 2026.7.1 (DEFAULT_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS);
// - a torn (empty) lock file: the model reclaims it at once; both releases' acquire removes it only once the file's
//   mtime is older than the stale time (2026.4.24: 30 min, so every acquire within 30 min of the power loss times out)
//   or, in 2026.7.1, than min(stale time, 30 s) (the orphan payload grace); but a gateway that starts sweeps its
//   sessions directory (cleanStaleLockFiles), which in 2026.4.24 removes a torn lock at once (no mtime check there);
//   a contender of the gateway's process here is such a start;
// - the holder's watchdog (a 60 s setInterval from the process's first acquire) force-releases a lock held longer
//   than its max hold: 5 min for 2026.4.24's mirror and for both of 2026.7.1's callers, 48 h 17 min for 2026.4.24's run
//   attempt (its run timeout plus compaction and grace); the model never lets go of a held lock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acquireSessionWriteLock, lockPathOf, type SessionWriteLock, SessionWriteLockError } from '../../src/session-write-lock.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import type { WriteLockCaller } from '../../sim/real/openclaw/write-lock.ts';
import { openclawMissing } from './openclaw-support.ts';
import { isJulyLine } from '../../sim/real/openclaw/releases.ts';

const missing = openclawMissing('real OpenClaw write-lock tests');

const sql = await loadSqlJs();
const file = '/data/sessions/agent%3Amain%3Achat%3A0.jsonl';

type HolderFate = 'releases' | 'killed' | 'torn' | 'stuck';

interface LockCase {
  /** What the holder's caller is; the contender is the other caller, in the other process. */
  holder: WriteLockCaller;
  fate: HolderFate;
  /** When the holder releases, is killed or loses power (ms after it took the lock; unused when stuck). */
  fateAtMs: number;
  /** When the contender asks (ms after the holder took the lock). */
  contendAtMs: number;
}

interface LockOutcome {
  /** ms after the contender asked: when it took the lock, or when it gave up. */
  afterMs: number;
  took: boolean;
  /** The error's name when it gave up (the model's SessionWriteLockError either way). */
  error?: string;
  /** After the contender released what it took, the lock file is gone. */
  cleanAfter: boolean;
}

const processOf = (caller: WriteLockCaller) => (caller === 'run-attempt' ? 'runner' : 'gateway');
const other = (caller: WriteLockCaller): WriteLockCaller => (caller === 'run-attempt' ? 'delivery-mirror' : 'run-attempt');

/** One case in a fresh simulated machine, with the model's lock (`release` undefined) or a release's. */
async function runLockCase(release: OpenclawRelease | undefined, lockCase: LockCase): Promise<LockOutcome & { escapes: string[] }> {
  const sim = new Simulation({ seed: `write-lock/${JSON.stringify(lockCase)}`, sql, simTimeMsMax: 3_600_000 });
  const parts = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: ['session-write-lock'] });
  const acquire = (ctx: ProcessContext, caller: WriteLockCaller): Promise<SessionWriteLock> => {
    const port = parts?.sessionWriteLock?.(ctx, caller);
    return port === undefined ? acquireSessionWriteLock(ctx, file) : port.acquire(file);
  };
  let outcome: LockOutcome | undefined;
  let heldAtMs: number | undefined;
  const holderName = processOf(lockCase.holder);
  sim.spawn(holderName, async (ctx) => {
    const lock = await acquire(ctx, lockCase.holder);
    heldAtMs = ctx.clock.nowMs();
    const at = heldAtMs;
    sim.at(at + lockCase.contendAtMs, () =>
      sim.spawn(processOf(other(lockCase.holder)), async (contender) => {
        const askedAtMs = contender.clock.nowMs();
        try {
          const taken = await acquire(contender, other(lockCase.holder));
          const afterMs = contender.clock.nowMs() - askedAtMs;
          await taken.release();
          outcome = { afterMs, took: true, cleanAfter: sim.disk.peek(lockPathOf(file)) === undefined };
        } catch (error) {
          if (!(error instanceof SessionWriteLockError)) throw error;
          outcome = { afterMs: contender.clock.nowMs() - askedAtMs, took: false, error: error.name, cleanAfter: true };
        }
      }),
    );
    if (lockCase.fate === 'killed') sim.at(at + lockCase.fateAtMs, () => sim.kill(holderName));
    if (lockCase.fate === 'torn')
      sim.at(at + lockCase.fateAtMs, () => {
        sim.kill(holderName);
        sim.disk.powerLoss();
      });
    if (lockCase.fate === 'releases') {
      await ctx.timers.sleep(lockCase.fateAtMs);
      await lock.release();
    }
  });
  await sim.run();
  sim.dispose();
  if (outcome === undefined) throw new Error(`no outcome for ${JSON.stringify(lockCase)} (${release ?? 'model'})`);
  return { ...outcome, escapes: parts?.escapes ?? [] };
}

/** The timeout each side's contender waits (its caller's, as write-lock.ts passes it). */
function timeoutOf(release: OpenclawRelease | undefined): number {
  return isJulyLine(release) ? 60_000 : 10_000;
}

/** The holder's max hold, past which its watchdog force-releases (undefined: never within these cases). */
function maxHoldOf(release: OpenclawRelease | undefined, holder: WriteLockCaller): number | undefined {
  if (release === undefined) return undefined;
  if (release === '2026.4.24' && holder === 'run-attempt') return undefined;
  return 300_000;
}

/**
 * When the lock becomes free for the contender (ms after the holder took it), by each side's rule (the header), or
 * undefined when it never does within the case.
 */
function freeAtMs(release: OpenclawRelease | undefined, lockCase: LockCase): number | undefined {
  const { fate, fateAtMs } = lockCase;
  if (fate === 'releases' || fate === 'killed') return fateAtMs;
  if (fate === 'torn') {
    if (release === undefined) return fateAtMs;
    // The empty file's mtime is the holder's acquire (its payload write): removed once older than the grace. A
    // contending gateway is a gateway that starts after the power loss: 2026.4.24's start sweeps a torn lock at once.
    if (release === '2026.4.24') return lockCase.holder === 'run-attempt' ? lockCase.contendAtMs : 1_800_000;
    return 30_000;
  }
  const maxHold = maxHoldOf(release, lockCase.holder);
  // The watchdog ticks every 60 s from the holder's first acquire: the first tick past the max hold lets go.
  return maxHold === undefined ? undefined : (Math.floor(maxHold / 60_000) + 1) * 60_000;
}

/** What each side does with a case, by its rule: take the lock within a retry of its freeing, or give up at its timeout. */
function expectRule(release: OpenclawRelease | undefined, lockCase: LockCase, outcome: LockOutcome): void {
  const label = `${release ?? 'model'} ${JSON.stringify(lockCase)} -> ${JSON.stringify(outcome)}`;
  const free = freeAtMs(release, lockCase);
  const timeout = timeoutOf(release);
  const waitMs = free === undefined ? Number.POSITIVE_INFINITY : Math.max(0, free - lockCase.contendAtMs);
  if (waitMs < timeout - 1_200) {
    expect(outcome.took, label).toBe(true);
    // Within a retry of the freeing (2026.4.24 and the model back off to 1 s, 2026.7.1 retries every 50 ms).
    expect(outcome.afterMs, label).toBeGreaterThanOrEqual(waitMs);
    expect(outcome.afterMs, label).toBeLessThanOrEqual(waitMs + (isJulyLine(release) ? 200 : 1_100));
    expect(outcome.cleanAfter, label).toBe(true);
  } else if (waitMs > timeout + 100) {
    expect(outcome.took, label).toBe(false);
    expect(outcome.error, label).toBe('SessionWriteLockError');
    expect(outcome.afterMs, label).toBeGreaterThanOrEqual(timeout);
    expect(outcome.afterMs, label).toBeLessThanOrEqual(timeout + 100);
  }
}

const callerArb = fc.constantFrom<WriteLockCaller>('run-attempt', 'delivery-mirror');
/** Times away from each side's edges (a timeout, a grace, a watchdog tick), where a millisecond of disk latency decides. */
const caseArb: fc.Arbitrary<LockCase> = fc.oneof(
  fc.record({ holder: callerArb, fate: fc.constant<HolderFate>('releases'), fateAtMs: fc.oneof(fc.integer({ min: 1, max: 7_000 }), fc.integer({ min: 13_000, max: 50_000 }), fc.integer({ min: 75_000, max: 90_000 })), contendAtMs: fc.integer({ min: 0, max: 500 }) }),
  fc.record({ holder: callerArb, fate: fc.constant<HolderFate>('killed'), fateAtMs: fc.integer({ min: 1, max: 8_000 }), contendAtMs: fc.integer({ min: 0, max: 9_000 }) }),
  fc.record({ holder: callerArb, fate: fc.constant<HolderFate>('torn'), fateAtMs: fc.integer({ min: 10, max: 20_000 }), contendAtMs: fc.integer({ min: 0, max: 25_000 }) }).filter((c) => c.contendAtMs >= c.fateAtMs),
  fc.record({ holder: callerArb, fate: fc.constant<HolderFate>('stuck'), fateAtMs: fc.constant(0), contendAtMs: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 400_000, max: 600_000 })) }),
);

describe.skipIf(missing)('the session write lock: each release against the model', () => {
  for (const release of openclawReleases) {
    it(`${release}: the model and the release follow their rules on the same cases, and agree outside the named differences`, async () => {
      let agreed = 0;
      let differed = 0;
      await fc.assert(
        fc.asyncProperty(caseArb, async (lockCase) => {
          const model = await runLockCase(undefined, lockCase);
          const real = await runLockCase(release, lockCase);
          expect(real.escapes, JSON.stringify(lockCase)).toEqual([]);
          expectRule(undefined, lockCase, model);
          expectRule(release, lockCase, real);
          const sameRule = freeAtMs(undefined, lockCase) === freeAtMs(release, lockCase) && timeoutOf(undefined) === timeoutOf(release);
          if (sameRule) {
            expect(real.took, JSON.stringify(lockCase)).toBe(model.took);
            agreed += 1;
          } else differed += 1;
        }),
        { numRuns: 40, seed: 22 },
      );
      expect(agreed + differed).toBe(40);
    }, 600_000);

    it(`${release}: a dead holder's lock is taken at once, and a torn lock waits for its mtime`, async () => {
      const killed = await runLockCase(release, { holder: 'run-attempt', fate: 'killed', fateAtMs: 2_000, contendAtMs: 3_000 });
      expect(killed.took).toBe(true);
      // (A contending gateway sweeps at its start too: its acquire may meet the file the sweep is removing, and retry.)
      expect(killed.afterMs).toBeLessThan(120);
      // The gateway's lock torn, the runner contending (no gateway start, so no sweep).
      const torn = await runLockCase(release, { holder: 'delivery-mirror', fate: 'torn', fateAtMs: 2_000, contendAtMs: 3_000 });
      const model = await runLockCase(undefined, { holder: 'delivery-mirror', fate: 'torn', fateAtMs: 2_000, contendAtMs: 3_000 });
      expect(model.took).toBe(true);
      expect(model.afterMs).toBeLessThan(50);
      if (release === '2026.4.24') {
        expect(torn.took).toBe(false);
        expect(torn.afterMs).toBeGreaterThanOrEqual(10_000);
        expect(torn.afterMs).toBeLessThan(10_100);
      } else {
        expect(torn.took).toBe(true);
        expect(torn.afterMs).toBeGreaterThanOrEqual(27_000);
        expect(torn.afterMs).toBeLessThan(27_200);
      }
    }, 120_000);

    it(`${release}: a run attempt's lock held past the stale time, taken over by a starting gateway, then released by the run attempt`, async () => {
      // The runner holds from 0 to 31 min; a gateway starts at 30.5 min and its mirror takes the lock for 2 min.
      const heldAfter = async (side: OpenclawRelease | undefined) => {
        const sim = new Simulation({ seed: `write-lock-takeover/${side ?? 'model'}`, sql, simTimeMsMax: 3_000_000 });
        const parts = side === undefined ? undefined : openclawGatewayPartsFor(sim, { release: side, parts: ['session-write-lock'] });
        const acquire = (ctx: ProcessContext, caller: WriteLockCaller) => parts?.sessionWriteLock?.(ctx, caller).acquire(file) ?? acquireSessionWriteLock(ctx, file);
        const seen: { mirrorTook?: number; lockAfterRunnerRelease?: string | undefined } = {};
        sim.spawn('runner', async (ctx) => {
          const lock = await acquire(ctx, 'run-attempt');
          await ctx.timers.sleep(31 * 60_000);
          await lock.release();
        });
        sim.at(30 * 60_000 + 30_000, () =>
          sim.spawn('gateway', async (ctx) => {
            const lock = await acquire(ctx, 'delivery-mirror');
            seen.mirrorTook = ctx.clock.nowMs();
            await ctx.timers.sleep(60_000);
            seen.lockAfterRunnerRelease = sim.disk.peek(lockPathOf(file));
            await lock.release();
          }),
        );
        await sim.run();
        sim.dispose();
        expect(parts?.escapes ?? []).toEqual([]);
        return seen;
      };
      const model = await heldAfter(undefined);
      const real = await heldAfter(release);
      // The model: a lock older than 30 min is stale, the mirror reclaims it, and the runner's release leaves the
      // mirror's lock alone (it removes only its own).
      expect(model.mirrorTook).toBeLessThan(30 * 60_000 + 31_000);
      expect(model.lockAfterRunnerRelease).toContain('"pid"');
      expect(real.mirrorTook).toBeLessThan(30 * 60_000 + 31_000);
      if (release === '2026.4.24') {
        // The lock is over 30 min old: stale though its holder lives (the gateway's start sweep and the mirror's
        // acquire both say so), so the mirror takes it; the runner's release then removes the mirror's lock file
        // while the mirror still holds it (2026.4.24's release removes whatever file is there).
        expect(real.lockAfterRunnerRelease).toBeUndefined();
      } else {
        // The run attempt's watchdog let go at 6 min (max hold 5 min); its late release finds nothing of its own.
        expect(real.lockAfterRunnerRelease).toContain('"pid"');
      }
    }, 120_000);

    it(`${release}: the gateway's start sweeps the sessions directory, removing a torn lock (2026.4.24) or leaving a fresh one to its grace (2026.7.1)`, async () => {
      const sim = new Simulation({ seed: `write-lock-sweep/${release}`, sql, simTimeMsMax: 600_000 });
      const parts = openclawGatewayPartsFor(sim, { release, parts: ['session-write-lock'] });
      const seen: { atMs: number; lock: string | undefined }[] = [];
      sim.spawn('runner', async (ctx) => {
        await parts.sessionWriteLock?.(ctx, 'run-attempt').acquire(file);
        sim.at(ctx.clock.nowMs() + 2_000, () => {
          sim.kill('runner');
          sim.disk.powerLoss();
        });
      });
      // Gateways started 3 s and 40 s after the power loss, each sweeping at its start.
      for (const startMs of [5_000, 42_000]) {
        sim.at(startMs, () =>
          sim.spawn('gateway', async (ctx) => {
            seen.push({ atMs: ctx.clock.nowMs(), lock: sim.disk.peek(lockPathOf(file)) });
            parts.sessionWriteLock?.(ctx, 'delivery-mirror');
            await ctx.timers.sleep(1_000);
            seen.push({ atMs: ctx.clock.nowMs(), lock: sim.disk.peek(lockPathOf(file)) });
            sim.at(ctx.clock.nowMs() + 1, () => sim.kill('gateway'));
          }),
        );
      }
      await sim.run();
      sim.dispose();
      expect(parts.escapes).toEqual([]);
      // The power loss left the lock file empty (its payload was not written back).
      expect(seen[0]?.lock).toBe('');
      if (release === '2026.4.24') expect(seen.map((entry) => entry.lock)).toEqual(['', undefined, undefined, undefined]);
      else expect(seen.map((entry) => entry.lock)).toEqual(['', '', '', undefined]);
    }, 120_000);
  }
});
