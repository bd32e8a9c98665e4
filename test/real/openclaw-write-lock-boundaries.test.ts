// The session write lock at each side's edges (issue 43 item 7): where test/real/openclaw-write-lock.test.ts keeps its
// times away from them, this test lands the holder's release, the contender's ask and the holder's re-take exactly on,
// one millisecond before and one after the model's and each JSONL-era release's attempt times, acquire timeout
// (10 s in the model and 2026.4.24, 60 s in 2026.7.1), stale time (30 min) and max hold (the watchdog's 5 min, ticking
// every 60 s), and states what each side does there (2026.7.35, the July line's last, follows 2026.7.1's rules). The
// disk answers at once (latency 0, a setting of this test), so every attempt falls on a known millisecond; the real
// lock runs through the adapter a run uses (sim/real/openclaw/write-lock.ts), each process with its lock part made at
// its start (a gateway's start sweeps the sessions directory then, before any of the case's edges).
//
// The rules, as read (2026.4.24 dist/session-write-lock-CAy2l2rJ.js; 2026.7.1 dist/session-write-lock-BZ_4P1vk.js over
// dist/sidecar-lock-CyPvXk-D.js) and as measured here; docs/MODEL.md "The session write lock, real" names each:
// - Attempts. The model and 2026.4.24 try at 0 and then after min(1,000, 50 x attempt) ms while under the timeout: at
//   0, 50, 150, 300, ... 8,550, 9,500 ms, then wait out the rest and give up at 10,000 ms with no attempt there.
//   2026.7.1 tries every 50 ms (a setImmediate yield costs no simulated time) and once more at 60,000 ms itself (its
//   loop looks at the clock after a failed attempt), then gives up at 60,000 ms.
// - A release in the very millisecond of an attempt: the model's attempt finds the lock gone, both releases' attempts
//   find it still there (their create reaches the disk before the holder's remove in that millisecond). The order of
//   two things in one simulated millisecond is the simulation's, not a claim about OpenClaw; it is stated so that the
//   edge is pinned.
// - Stale at 30 min: a lock older than 30 min (strictly) is taken over though its holder lives, in the model and in
//   2026.4.24 (whose run attempt may hold that long: its max hold is 48 h); the first attempt past 30 min takes it. A
//   2026.7.1 run attempt's lock is long gone by then (its watchdog let go at 6 min).
// - Max hold: the holder's watchdog ticks every 60 s and lets go of a lock held longer than 5 min (strictly: held
//   exactly 5 min at a tick, it is kept to the next). 2026.4.24 stops its interval when no lock is held, so a lock
//   re-taken at d is let go at d + 6 min; 2026.7.1's interval runs from the process's first acquire, so the lock goes at
//   the first tick more than 5 min after d. A tick and an attempt in one millisecond: the tick first. 2026.7.1's
//   contender also reports a lock older than its holder's max hold as stale (`hold-exceeded`): the attempt that finds
//   it so gives up at once with SessionWriteLockStaleError. The model never lets go of a held lock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acquireSessionWriteLock, type SessionWriteLock, SessionWriteLockError, type SessionWriteLockPort } from '../../src/session-write-lock.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { isJulyLine } from '../../sim/real/openclaw/releases.ts';
import type { WriteLockCaller } from '../../sim/real/openclaw/write-lock.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw write-lock boundary tests');

const sql = await loadSqlJs();
const file = '/data/sessions/agent%3Amain%3Achat%3A0.jsonl';
const processOf = (caller: WriteLockCaller) => (caller === 'run-attempt' ? 'runner' : 'gateway');
const other = (caller: WriteLockCaller): WriteLockCaller => (caller === 'run-attempt' ? 'delivery-mirror' : 'run-attempt');

type Side = OpenclawRelease | 'model';

interface EdgeCase {
  holder: WriteLockCaller;
  /** The holder lets go at 1 ms and takes the lock again at this time (ms after its first take); 0: it keeps its first. */
  retakeAtMs: number;
  /** When the holder releases (ms after its first take), or never. */
  releaseAtMs: number | null;
  /** When the contender asks (ms after the holder's first take). */
  askAtMs: number;
}

interface EdgeOutcome {
  took: boolean;
  /** When it took the lock or gave up, ms after the holder's first take. */
  atMs: number;
  /** Gave up on a stale lock it may not remove (2026.7.1's SessionWriteLockStaleError), not at the timeout. */
  stale?: boolean;
}

/** One case in a fresh machine whose disk answers at once. */
async function runEdge(side: Side, edge: EdgeCase): Promise<EdgeOutcome & { escapes: string[] }> {
  const sim = new Simulation({ seed: `write-lock-edges/${JSON.stringify(edge)}`, sql, simTimeMsMax: 4 * 3_600_000 });
  sim.disk.faults.latencyMsMax = 0;
  const parts = side === 'model' ? undefined : openclawGatewayPartsFor(sim, { release: side, parts: ['session-write-lock'] });
  const portOf = (ctx: ProcessContext, caller: WriteLockCaller): SessionWriteLockPort => parts?.sessionWriteLock?.(ctx, caller) ?? { acquire: (path) => acquireSessionWriteLock(ctx, path) };
  let outcome: EdgeOutcome | undefined;
  sim.spawn(processOf(edge.holder), async (ctx) => {
    const port = portOf(ctx, edge.holder);
    let lock: SessionWriteLock = await port.acquire(file);
    const firstAt = ctx.clock.nowMs();
    // The contender's process starts now (a gateway's start sweep runs at once), and asks at its time.
    sim.spawn(processOf(other(edge.holder)), async (contender) => {
      const contending = portOf(contender, other(edge.holder));
      await contender.timers.sleep(firstAt + edge.askAtMs - contender.clock.nowMs());
      try {
        const taken = await contending.acquire(file);
        outcome = { took: true, atMs: contender.clock.nowMs() - firstAt };
        await taken.release();
      } catch (error) {
        if (!(error instanceof SessionWriteLockError)) throw error;
        outcome = { took: false, atMs: contender.clock.nowMs() - firstAt, ...(/stale/.test(error.message) ? { stale: true } : {}) };
      }
    });
    if (edge.retakeAtMs > 0) {
      await ctx.timers.sleep(1);
      await lock.release();
      await ctx.timers.sleep(edge.retakeAtMs - 1);
      lock = await port.acquire(file);
    }
    if (edge.releaseAtMs !== null) {
      await ctx.timers.sleep(firstAt + edge.releaseAtMs - ctx.clock.nowMs());
      await lock.release();
    }
  });
  await sim.run();
  sim.dispose();
  if (outcome === undefined) throw new Error(`no outcome for ${JSON.stringify(edge)} (${side})`);
  return { ...outcome, escapes: parts?.escapes ?? [] };
}

const timeoutOf = (side: Side) => (isJulyLine(side) ? 60_000 : 10_000);

/** A side's attempts, in ms after its ask (header). */
function attemptsOf(side: Side): number[] {
  const timeout = timeoutOf(side);
  const attempts = [0];
  if (isJulyLine(side)) {
    while ((attempts.at(-1) as number) < timeout) attempts.push((attempts.at(-1) as number) + 50);
    return attempts;
  }
  for (let attempt = 1; ; attempt++) {
    const next = (attempts.at(-1) as number) + Math.min(1_000, 50 * attempt);
    if (next >= timeout) return attempts;
    attempts.push(next);
  }
}

/** The holder's max hold (the watchdog's), or undefined where none lets go within these cases. */
function maxHoldOf(side: Side, holder: WriteLockCaller): number | undefined {
  if (side === 'model' || (side === '2026.4.24' && holder === 'run-attempt')) return undefined;
  return 300_000;
}

/** When the holder's watchdog lets go (ms after its first take; its interval started then), by the side's rule. */
function watchdogFreesAt(side: Side, edge: EdgeCase): number | undefined {
  const maxHold = maxHoldOf(side, edge.holder);
  if (maxHold === undefined) return undefined;
  // 2026.4.24's interval restarts with the re-take; 2026.7.1's ticks from the first take on.
  const origin = side === '2026.4.24' ? edge.retakeAtMs : 0;
  let tick = origin + 60_000;
  while (tick - edge.retakeAtMs <= maxHold) tick += 60_000;
  return tick;
}

/** What the side's contender does, by its rules (header). */
function ruleOf(side: Side, edge: EdgeCase): EdgeOutcome {
  const freedAt = edge.releaseAtMs ?? Number.POSITIVE_INFINITY;
  const watchdog = watchdogFreesAt(side, edge) ?? Number.POSITIVE_INFINITY;
  for (const offset of attemptsOf(side)) {
    const at = edge.askAtMs + offset;
    // The holder's release: the model's attempt sees one in its own millisecond, the releases' the next attempt.
    const released = side === 'model' ? at >= freedAt : at > freedAt;
    // The watchdog's tick goes first in its millisecond.
    if (released || at >= watchdog) return { took: true, atMs: at };
    const age = at - edge.retakeAtMs;
    if (side !== '2026.7.1' && age > 1_800_000) return { took: true, atMs: at };
    const maxHold = maxHoldOf(side, edge.holder);
    if (isJulyLine(side) && maxHold !== undefined && age > maxHold) return { took: false, atMs: at, stale: true };
  }
  return { took: false, atMs: edge.askAtMs + timeoutOf(side) };
}

/** Each side's edges, in ms after an ask: its attempts near the end and its timeout. */
const edgesAfterAsk = [...new Set([...attemptsOf('model').slice(-4), 50, 150, 10_000, 50, 100, 9_950, 10_000, 59_950, 60_000])];
const around = (edge: number) => fc.tuple(fc.constantFrom(edge), fc.constantFrom(-1, 0, 1)).map(([at, delta]) => at + delta);

const askAtMs = 1_000;
/** A live holder lets go around an attempt or a timeout of any side. */
const releaseCaseArb: fc.Arbitrary<EdgeCase> = fc.record({
  holder: fc.constantFrom<WriteLockCaller>('run-attempt', 'delivery-mirror'),
  retakeAtMs: fc.constant(0),
  releaseAtMs: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...edgesAfterAsk).chain(around) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 61_000 }) }).map((at) => askAtMs + at),
  askAtMs: fc.constant(askAtMs),
});
/** A run attempt that never lets go, asked for around 30 min after it took the lock. */
const staleCaseArb: fc.Arbitrary<EdgeCase> = fc.record({
  holder: fc.constant<WriteLockCaller>('run-attempt'),
  retakeAtMs: fc.constant(0),
  releaseAtMs: fc.constant(null),
  askAtMs: fc.oneof(fc.constantFrom(...[0, 50, 150, 9_500].map((attempt) => 1_800_000 - attempt)).chain(around), fc.integer({ min: 1_790_000, max: 1_800_100 })),
});
/** A delivery mirror that re-took the lock at d and never lets go, asked for around 5 and 6 min after d. */
const maxHoldCaseArb: fc.Arbitrary<EdgeCase> = fc
  .record({
    retakeAtMs: fc.oneof(fc.constantFrom(0, 2, 59_999, 60_000, 60_001), fc.integer({ min: 2, max: 120_000 })),
    askOffsetMs: fc.oneof(fc.constantFrom(290_000, 299_950, 300_000, 350_000, 359_950, 360_000).chain(around), fc.integer({ min: 280_000, max: 370_000 })),
  })
  .map(({ retakeAtMs, askOffsetMs }) => ({ holder: 'delivery-mirror' as const, retakeAtMs, releaseAtMs: null, askAtMs: retakeAtMs + askOffsetMs }));

describe.skipIf(missing)("the session write lock at each side's edges: the model and the JSONL-era releases", () => {
  it("the rules' edges, by example: a release at an attempt's millisecond, the timeout, 30 min, the watchdog's tick", () => {
    expect(attemptsOf('model').slice(-3)).toEqual([7_650, 8_550, 9_500]);
    expect(attemptsOf('2026.4.24')).toEqual(attemptsOf('model'));
    expect(attemptsOf('2026.7.1').slice(-2)).toEqual([59_950, 60_000]);
    const held = (releaseAfterAsk: number): EdgeCase => ({ holder: 'run-attempt', retakeAtMs: 0, releaseAtMs: askAtMs + releaseAfterAsk, askAtMs });
    expect(ruleOf('model', held(9_500))).toEqual({ took: true, atMs: askAtMs + 9_500 });
    expect(ruleOf('2026.4.24', held(9_500))).toEqual({ took: false, atMs: askAtMs + 10_000 });
    expect(ruleOf('2026.7.1', held(59_999))).toEqual({ took: true, atMs: askAtMs + 60_000 });
    expect(ruleOf('2026.7.1', held(60_000))).toEqual({ took: false, atMs: askAtMs + 60_000 });
    expect(watchdogFreesAt('2026.4.24', { holder: 'delivery-mirror', retakeAtMs: 59_999, releaseAtMs: null, askAtMs: 0 })).toBe(59_999 + 360_000);
    expect(watchdogFreesAt('2026.7.1', { holder: 'delivery-mirror', retakeAtMs: 59_999, releaseAtMs: null, askAtMs: 0 })).toBe(360_000);
    expect(watchdogFreesAt('2026.7.1', { holder: 'delivery-mirror', retakeAtMs: 60_000, releaseAtMs: null, askAtMs: 0 })).toBe(420_000);
  });

  for (const side of ['model', ...openclawReleases] as const) {
    for (const [name, arb, runs] of [
      ['a live holder lets go around an attempt or a timeout', releaseCaseArb, 40],
      ['a stuck run attempt asked for around 30 min', staleCaseArb, 15],
      ['a stuck delivery mirror asked for around its max hold', maxHoldCaseArb, 30],
    ] as const) {
      it(`${side}: ${name}: the contender takes the lock or gives up exactly when its rules say`, async () => {
        await fc.assert(
          fc.asyncProperty(arb, async (edge) => {
            const { escapes, ...seen } = await runEdge(side, edge);
            expect(escapes).toEqual([]);
            expect(seen, `${side} ${JSON.stringify(edge)}`).toEqual(ruleOf(side, edge));
          }),
          { numRuns: runs },
        );
      }, 300_000);
    }
  }

  it('the releases differ from the model where docs/MODEL.md says, on these edges', async () => {
    // A release in the millisecond of the model's last attempt: the model takes the lock, 2026.4.24 times out.
    const atLast: EdgeCase = { holder: 'run-attempt', retakeAtMs: 0, releaseAtMs: askAtMs + 9_500, askAtMs };
    expect(await runEdge('model', atLast)).toMatchObject({ took: true, atMs: askAtMs + 9_500 });
    expect(await runEdge('2026.4.24', atLast)).toMatchObject({ took: false, atMs: askAtMs + 10_000 });
    expect(await runEdge('2026.7.1', atLast)).toMatchObject({ took: true, atMs: askAtMs + 9_550 });
    // A mirror re-taken at 60 s and stuck, asked for at 355 s: the model times out; 2026.4.24's watchdog lets go at
    // 420 s (after the contender gave up at 365 s); 2026.7.1 keeps it at its 360 s tick (held exactly 5 min) and its
    // contender gives up at 360.05 s on a lock older than the holder's max hold.
    const mirror: EdgeCase = { holder: 'delivery-mirror', retakeAtMs: 60_000, releaseAtMs: null, askAtMs: 355_000 };
    expect(await runEdge('model', mirror)).toMatchObject({ took: false, atMs: 365_000 });
    expect(await runEdge('2026.4.24', mirror)).toMatchObject({ took: false, atMs: 365_000 });
    expect(await runEdge('2026.7.1', mirror)).toMatchObject({ took: false, atMs: 360_050, stale: true });
  }, 120_000);
});
