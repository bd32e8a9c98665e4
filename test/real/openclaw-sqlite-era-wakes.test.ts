// The wakes of the SQLite-era releases against the model's (src/heartbeat-wake.ts), on the same generated plans of wake
// requests and handler answers, each in a simulated gateway: 2026.8.1's heartbeat wake (dist/heartbeat-wake-CZqryaOn.js,
// region src/infra/heartbeat-wake.ts) and 2026.9.6's session-event wake (dist/heartbeat-wake-bWS25cgK.mjs, region
// src/infra/session-event-wake.ts; its handler set through heartbeat-wake.ts's setHeartbeatWakeHandler), through the
// adapter a run uses (sim/real/openclaw/gateway-parts.ts), the model's heartbeat runner stood for by a handler that
// takes a planned time and answers `ran` or `skipped-busy` (which the adapter gives the release as `requests-in-flight`).
//
// What every implementation does, checked on every plan: each request is served by a handler call for its target that
// starts no earlier than it (coverage); the calls for one target never overlap. Where the releases part from the model
// (docs/MODEL.md, "The SQLite-era releases"), each stated as the test's reading of the release and checked:
// - a target answered busy waits the 1 s retry in the releases (the target is blocked until then); the model queues the
//   busy wake again under its one timer, and a timer another request armed earlier serves it sooner;
// - the coalesce is timed per target: with a handler that answers at once and never busy, each call of a release
//   starts 250 ms after the earliest request it serves (1 ms more for each unscoped wake that was ready then and ran
//   first); the model's one timer serves every pending target 250 ms after the first request of any, so a target
//   requested later is served sooner (never later) than 250 ms;
// - targets run side by side: a release dispatches up to 4 targets (sessions) at once, each target's wakes in order, so
//   calls of different sessions overlap; the model runs one batch at a time, one wake after another, never overlapping;
// - an unscoped wake (no session: the target `::`) waits for the other targets' calls to end and runs alone.
// The blocks run under Node 24 (test/real/openclaw-node24.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeartbeatWakes, type HeartbeatWakesPort, type WakeHandler, type WakeReason, type WakeTarget } from '../../src/heartbeat-wake.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';

const missing = sqliteEraMissing();

/** A session target, or none (an unscoped wake). */
const targets: readonly WakeTarget[] = [{ sessionKey: 'agent:main:chat:0' }, { sessionKey: 'agent:main:chat:1' }, { sessionKey: 'agent:main:chat:2' }, {}];
const reasons: readonly WakeReason[] = ['exec-event', 'retry', 'interval', 'default'];

interface Request {
  /** Wait this long after the previous request (ms). */
  afterMs: number;
  target: number;
  reason: WakeReason;
}

interface Plan {
  requests: Request[];
  /** The handler's answers in call order (past the end: `ran`, at once), each after `durationMs`. */
  answers: { durationMs: number; busy: boolean }[];
}

interface Call {
  target: string;
  reason: string;
  startMs: number;
  endMs: number;
  busy: boolean;
}

interface Outcome {
  requests: { target: string; atMs: number }[];
  calls: Call[];
  escapes: string[];
}

const keyOf = (target: WakeTarget): string => target.sessionKey ?? '::';

async function runPlan(plan: Plan, release: OpenclawRelease | undefined): Promise<Outcome> {
  const sim = new Simulation({ seed: `wakes-${release ?? 'model'}`, sql: await loadSqlJs() });
  const parts = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: ['heartbeat-wake'] });
  const outcome: Outcome = { requests: [], calls: [], escapes: parts?.escapes ?? [] };
  sim.spawn('gateway', async (ctx) => {
    let index = 0;
    const handler: WakeHandler = async (wake) => {
      const answer = plan.answers[index++] ?? { durationMs: 0, busy: false };
      const call: Call = { target: wake.sessionKey ?? '::', reason: wake.reason, startMs: ctx.clock.nowMs(), endMs: -1, busy: answer.busy };
      outcome.calls.push(call);
      if (answer.durationMs > 0) await ctx.timers.sleep(answer.durationMs);
      call.endMs = ctx.clock.nowMs();
      return answer.busy ? 'skipped-busy' : 'ran';
    };
    const wakes: HeartbeatWakesPort =
      parts?.heartbeatWakes?.(ctx, { coalesceMs: 250, retryMs: 1_000 }, handler) ??
      new HeartbeatWakes(ctx.timers, () => ctx.clock.nowMs(), 250, 1_000, handler, (name, task) => ctx.spawnTask(name, task));
    for (const request of plan.requests) {
      if (request.afterMs > 0) await ctx.timers.sleep(request.afterMs);
      const target = targets[request.target] as WakeTarget;
      outcome.requests.push({ target: keyOf(target), atMs: ctx.clock.nowMs() });
      wakes.requestHeartbeatNow(request.reason, target);
    }
    await ctx.timers.sleep(120_000);
  });
  await sim.run();
  sim.dispose();
  return outcome;
}

/** What every implementation does (the header); `retryHeld`: a busy target waits the 1 s retry (the releases). */
function expectCommonRules(outcome: Outcome, label: string, retryHeld: boolean): number {
  let sooner = 0;
  expect(outcome.escapes, label).toEqual([]);
  for (const request of outcome.requests) {
    expect(
      outcome.calls.some((call) => call.target === request.target && call.startMs >= request.atMs),
      `${label}: the request for ${request.target} at ${request.atMs} ms is served`,
    ).toBe(true);
  }
  for (const call of outcome.calls) {
    expect(call.endMs, `${label}: every call ends`).toBeGreaterThanOrEqual(call.startMs);
    const next = outcome.calls.find((other) => other !== call && other.target === call.target && other.startMs >= call.startMs && outcome.calls.indexOf(other) > outcome.calls.indexOf(call));
    if (next === undefined) continue;
    expect(next.startMs, `${label}: calls of ${call.target} do not overlap`).toBeGreaterThanOrEqual(call.endMs);
    if (call.busy && retryHeld) expect(next.startMs - call.endMs, `${label}: ${call.target} answered busy at ${call.endMs} ms waits the retry`).toBeGreaterThanOrEqual(1_000);
    if (call.busy && next.startMs - call.endMs < 1_000) sooner++;
  }
  // Returns how many busy targets were called again before the retry (the model's difference).
  return sooner;
}

/** Calls of different targets that overlap in time (the model never has any). */
function overlaps(outcome: Outcome): number {
  let count = 0;
  for (const [index, call] of outcome.calls.entries()) {
    for (const other of outcome.calls.slice(index + 1)) if (other.target !== call.target && other.startMs < call.endMs && call.startMs < other.endMs) count++;
  }
  return count;
}

/** For each call, the time since the earliest request it serves (requests of its target since that target's last call). */
function coalesceDelays(outcome: Outcome): number[] {
  const servedUpTo = new Map<string, number>();
  return outcome.calls.map((call) => {
    const from = servedUpTo.get(call.target) ?? -1;
    const served = outcome.requests.filter((request) => request.target === call.target && request.atMs > from && request.atMs <= call.startMs);
    servedUpTo.set(call.target, call.startMs);
    return served.length === 0 ? Number.NaN : call.startMs - Math.min(...served.map((request) => request.atMs));
  });
}

const requestArb: fc.Arbitrary<Request> = fc.record({
  afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 3_000 })),
  target: fc.integer({ min: 0, max: targets.length - 1 }),
  reason: fc.constantFrom(...reasons),
});
const answerArb = fc.record({ durationMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000 })), busy: fc.boolean() });
const planArb: fc.Arbitrary<Plan> = fc.record({ requests: fc.array(requestArb, { minLength: 1, maxLength: 12 }), answers: fc.array(answerArb, { maxLength: 10 }) });
/** Plans whose handler answers at once and never busy: the coalesce's timing alone. */
const instantPlanArb: fc.Arbitrary<Plan> = fc.record({ requests: fc.array(requestArb, { minLength: 1, maxLength: 12 }), answers: fc.constant([]) });

describe.skipIf(missing || !node24Here)(`${underNode24} the SQLite-era releases' wakes against the model's`, () => {
  it('the model: every request served, no two calls ever overlap, and a busy target may run again before the retry', async () => {
    let sooner = 0;
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const model = await runPlan(plan, undefined);
        sooner += expectCommonRules(model, 'model', false);
        expect(overlaps(model)).toBe(0);
      }),
      { numRuns: 60 },
    );
    expect(sooner).toBeGreaterThan(0);
  }, 300_000);

  for (const release of openclawSqliteEraReleases) {
    it(`${release}: every request served and a busy target held for the 1 s retry; targets side by side, where the model runs one at a time`, async () => {
      let sideBySide = 0;
      await fc.assert(
        fc.asyncProperty(planArb, async (plan) => {
          const real = await runPlan(plan, release);
          expectCommonRules(real, release, true);
          sideBySide += overlaps(real);
          // An unscoped wake runs alone.
          for (const call of real.calls.filter((candidate) => candidate.target === '::')) {
            expect(real.calls.some((other) => other !== call && other.startMs < call.endMs && call.startMs < other.endMs && call.endMs > call.startMs), `${release}: the unscoped wake at ${call.startMs} ms runs alone`).toBe(false);
          }
        }),
        { numRuns: 60 },
      );
      // The generator reaches the difference.
      expect(sideBySide).toBeGreaterThan(0);
    }, 300_000);

    it(`${release}: times the coalesce per target (250 ms after the earliest request a call serves); the model's one timer serves later targets sooner`, async () => {
      let sooner = 0;
      await fc.assert(
        fc.asyncProperty(instantPlanArb, async (plan) => {
          const real = await runPlan(plan, release);
          const model = await runPlan(plan, undefined);
          expectCommonRules(real, release, true);
          expectCommonRules(model, 'model', false);
          const unscoped = real.calls.filter((call) => call.target === '::').length;
          for (const delay of coalesceDelays(real)) {
            if (Number.isNaN(delay)) continue;
            if (unscoped === 0) expect(delay).toBe(250);
            else expect(delay - 250).toSatisfy((extra: number) => extra >= 0 && extra <= unscoped);
          }
          for (const delay of coalesceDelays(model)) {
            if (Number.isNaN(delay)) continue;
            expect(delay).toBeLessThanOrEqual(250);
            if (delay < 250) sooner++;
          }
        }),
        { numRuns: 60 },
      );
      expect(sooner).toBeGreaterThan(0);
    }, 300_000);
  }

  it('by example: two sessions requested 100 ms apart', async () => {
    const plan: Plan = {
      requests: [
        { afterMs: 1_000, target: 0, reason: 'exec-event' },
        { afterMs: 100, target: 1, reason: 'exec-event' },
      ],
      answers: [
        { durationMs: 500, busy: false },
        { durationMs: 500, busy: false },
      ],
    };
    const model = await runPlan(plan, undefined);
    expect(model.calls.map((call) => [call.target, call.startMs, call.endMs])).toEqual([
      ['agent:main:chat:0', 1_250, 1_750],
      ['agent:main:chat:1', 1_750, 2_250],
    ]);
    for (const release of openclawSqliteEraReleases) {
      const real = await runPlan(plan, release);
      expect(real.calls.map((call) => [call.target, call.startMs, call.endMs]), release).toEqual([
        ['agent:main:chat:0', 1_250, 1_750],
        ['agent:main:chat:1', 1_350, 1_850],
      ]);
    }
  }, 120_000);
});

describe.skipIf(missing || node24Here)('the SQLite-era releases on this Node', () => {
  it("run their wake blocks under the workspace's Node 24", () => rerunUnderNode24(import.meta.url, 600_000), 660_000);
});
