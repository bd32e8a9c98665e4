// The heartbeat wakes of the JSONL-era releases against the model's (src/heartbeat-wake.ts), on the same generated
// sequences (issue 43 item 7): wake requests for targets from a small set (an agent, a session, both, or neither),
// with the reasons the model names (retry, interval, default, exec-event), clock advances that land before, on and
// past the 250 ms coalesce and the 1 s retry (simulated timers of a gateway incarnation), and the handler's answers
// (`ran`, or `skipped-busy`, which the adapter gives the release as `{ status: 'skipped', reason:
// 'requests-in-flight' }`), each after a planned duration. Compared: every handler call, in order, with its target,
// reason, start and end time (so the batches: which targets are served together, and when).
//
// The releases' module (2026.4.24 dist/heartbeat-wake-gACR6ANS.js, 2026.7.1 dist/heartbeat-wake-DibZKDF_.js, region
// src/infra/heartbeat-wake.ts) runs through the adapter a run uses (sim/real/openclaw/gateway-parts.ts,
// RealHeartbeatWakes). Their rules, as read there, and the model's:
// - pending wakes keyed `<agentId>::<sessionKey>`; a request replaces the pending one of its key when its priority is
//   higher, or equal and newer; one timer: a request arms it with the 250 ms coalesce, a timer armed is kept if it
//   fires no later, a retry timer (1 s) is kept whatever; the fire takes the whole batch and runs it one wake at a
//   time; a busy answer re-queues that wake and asks for the retry timer; a fire during a running batch re-arms with
//   its own delay; the batch's end arms the fired timer's delay again when wakes are pending. The model's rules are the
//   same: with 2026.4.24 every call agrees (target, reason, times).
// - 2026.7.1 ranks a wake by `source` and `intent` (resolveWakePriority): only intent `manual`/`immediate` is action
//   priority, and the adapter asks for an exec event as the release's own handleNodeEvent does (source and reason
//   `exec-event`, intent `event`), so an exec-event wake is default priority there, where 2026.4.24 and the model rank
//   it action (docs/MODEL.md, "The heartbeat wakes, real": "2026.7.1 ranks an exec-event wake at default priority").
//   Priority decides only which request of a key is kept, never when: the calls' targets and times equal the model's
//   on every sequence; their reasons equal those of the model asked with every exec event as `default` (the label
//   aside), and differ from the model's only as exec-event (model) against default (release). A property states the
//   release's own rule (of exec-event and default requests within one coalesce, the newest is handed over) and an
//   example pins it.
// Nothing reaches the host (no escapes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeartbeatWakes, type HeartbeatWakesPort, type WakeHandler, type WakeReason, type WakeTarget } from '../../src/heartbeat-wake.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw heartbeat wake differential tests');

const coalesceMs = 250;
const retryMs = 1_000;

/** Targets: sessions, an agent, an agent and a session, and none (an unscoped wake). */
const targets: readonly WakeTarget[] = [{ sessionKey: 'agent:main:chat:0' }, { sessionKey: 'agent:main:chat:1' }, { agentId: 'main' }, { agentId: 'ops', sessionKey: 'agent:ops:chat:0' }, {}];
const reasons: readonly WakeReason[] = ['exec-event', 'retry', 'interval', 'default'];

type Op = { kind: 'request'; target: number; reason: WakeReason } | { kind: 'advance'; ms: number };

interface Plan {
  ops: Op[];
  /** The handler's answers in call order (past the end: `ran`, at once), each after `durationMs`. */
  answers: { durationMs: number; busy: boolean }[];
}

interface Call {
  target: string;
  reason: WakeReason;
  startMs: number;
  endMs: number;
}

interface Outcome {
  calls: Call[];
  escapes: string[];
}

const keyOf = (target: { agentId?: string | undefined; sessionKey?: string | undefined }): string => `${target.agentId ?? ''}::${target.sessionKey ?? ''}`;

/** The plan in a simulated gateway, against the model's wakes (`release` undefined) or the release's, via the adapter. */
async function runPlan(plan: Plan, release: OpenclawRelease | undefined, reasonOf: (reason: WakeReason) => WakeReason = (reason) => reason): Promise<Outcome> {
  const sim = new Simulation({ seed: `wake-differential-${release ?? 'model'}`, sql: await loadSqlJs() });
  const parts = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: ['heartbeat-wake'] });
  const outcome: Outcome = { calls: [], escapes: parts?.escapes ?? [] };
  sim.spawn('gateway', async (ctx) => {
    let index = 0;
    const handler: WakeHandler = async (wake) => {
      const answer = plan.answers[index++] ?? { durationMs: 0, busy: false };
      const call: Call = { target: keyOf(wake), reason: wake.reason, startMs: ctx.clock.nowMs(), endMs: -1 };
      outcome.calls.push(call);
      if (answer.durationMs > 0) await ctx.timers.sleep(answer.durationMs);
      call.endMs = ctx.clock.nowMs();
      return answer.busy ? 'skipped-busy' : 'ran';
    };
    const wakes: HeartbeatWakesPort =
      parts?.heartbeatWakes?.(ctx, { coalesceMs, retryMs }, handler) ??
      new HeartbeatWakes(ctx.timers, () => ctx.clock.nowMs(), coalesceMs, retryMs, handler, (name, task) => ctx.spawnTask(name, task));
    for (const op of plan.ops) {
      if (op.kind === 'advance') await ctx.timers.sleep(op.ms);
      else wakes.requestHeartbeatNow(reasonOf(op.reason), targets[op.target] as WakeTarget);
    }
    await ctx.timers.sleep(120_000);
  });
  await sim.run();
  sim.dispose();
  return outcome;
}

/** 2026.7.1's ranking asked of the model: an exec event (intent `event`) is default priority. */
const execAsDefault = (reason: WakeReason): WakeReason => (reason === 'exec-event' ? 'default' : reason);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('request' as const), target: fc.integer({ min: 0, max: targets.length - 1 }), reason: fc.constantFrom(...reasons) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // Around the coalesce and the retry: before, on and just past each, and anything up to 3 s.
      ms: fc.oneof(fc.constantFrom(1, 249, 250, 251, 999, 1_000, 1_001, 1_250), fc.integer({ min: 1, max: 3_000 })),
    }),
  },
);
const answerArb = fc.record({ durationMs: fc.oneof(fc.constant(0), fc.constantFrom(250, 1_000), fc.integer({ min: 1, max: 1_500 })), busy: fc.boolean() });
const planArb: fc.Arbitrary<Plan> = fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 16 }), answers: fc.array(answerArb, { maxLength: 8 }) });

const timing = (outcome: Outcome) => outcome.calls.map((call) => [call.target, call.startMs, call.endMs]);

describe.skipIf(missing)("the JSONL-era releases' heartbeat wakes against the model's, on generated sequences", () => {
  it('the generator reaches batches of several targets and busy wakes served at the retry', async () => {
    let multiTargetBatches = 0;
    let retried = 0;
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const model = await runPlan(plan, undefined);
        for (const [index, call] of model.calls.entries()) {
          const previous = model.calls[index - 1];
          if (previous !== undefined && previous.endMs === call.startMs && previous.target !== call.target) multiTargetBatches++;
          if (previous !== undefined && previous.target === call.target && call.startMs - previous.endMs === retryMs) retried++;
        }
      }),
      { numRuns: 100, seed: 43 },
    );
    expect(multiTargetBatches).toBeGreaterThan(0);
    expect(retried).toBeGreaterThan(0);
  }, 120_000);

  it('2026.4.24: every handler call agrees with the model (target, reason, start, end)', async () => {
    const release: OpenclawRelease = '2026.4.24';
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const model = await runPlan(plan, undefined);
        const real = await runPlan(plan, release);
        expect(real.escapes).toEqual([]);
        expect(real.calls).toEqual(model.calls);
      }),
      { numRuns: 100 },
    );
  }, 180_000);

  it("2026.7.1: the calls' targets and times agree with the model; their reasons with the model asked with exec events at default priority", async () => {
    const release: OpenclawRelease = '2026.7.1';
    let differs = 0;
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const model = await runPlan(plan, undefined);
        const ranked = await runPlan(plan, undefined, execAsDefault);
        const real = await runPlan(plan, release);
        expect(real.escapes).toEqual([]);
        expect(timing(real)).toEqual(timing(model));
        expect(timing(ranked)).toEqual(timing(model));
        expect(real.calls.map((call) => execAsDefault(call.reason))).toEqual(ranked.calls.map((call) => call.reason));
        // Where the reasons differ, the model kept the exec event (action) and the release a newer default request.
        for (const [index, call] of real.calls.entries()) {
          const modelReason = model.calls[index]?.reason;
          if (call.reason === modelReason) continue;
          differs++;
          expect([modelReason, call.reason], `${release}: call ${index} at ${call.startMs} ms`).toEqual(['exec-event', 'default']);
        }
      }),
      { numRuns: 100 },
    );
    // The generator reaches the difference (an exec event and a default request pending for one target).
    expect(differs).toBeGreaterThan(0);
  }, 240_000);

  it("2026.7.1's own rule: of exec-event and default requests for one target within a coalesce, the newest is handed over; the model's, any exec event", async () => {
    const burstArb = fc.array(fc.constantFrom<WakeReason>('exec-event', 'default'), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(burstArb, fc.integer({ min: 0, max: targets.length - 1 }), fc.integer({ min: 0, max: 40 }), async (burst, target, gapMs) => {
        const plan: Plan = { ops: burst.flatMap((reason): Op[] => [{ kind: 'request', target, reason }, { kind: 'advance', ms: gapMs }]), answers: [] };
        const served = (outcome: Outcome) => outcome.calls.map((call) => [call.target, call.reason, call.startMs]);
        const key = keyOf(targets[target] as WakeTarget);
        expect(served(await runPlan(plan, '2026.7.1'))).toEqual([[key, burst.at(-1), coalesceMs]]);
        const model = await runPlan(plan, undefined);
        expect(served(model)).toEqual([[key, burst.includes('exec-event') ? 'exec-event' : 'default', coalesceMs]]);
        expect((await runPlan(plan, '2026.4.24')).calls).toEqual(model.calls);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('covers every JSONL-era release', () => {
    expect([...openclawReleases]).toEqual(['2026.4.24', '2026.7.1', '2026.7.35']);
  });

  it('by example: an exec event then a default request for one session, 100 ms apart, and a busy answer', async () => {
    const plan: Plan = {
      ops: [
        { kind: 'advance', ms: 1_000 },
        { kind: 'request', target: 0, reason: 'exec-event' },
        { kind: 'advance', ms: 100 },
        { kind: 'request', target: 0, reason: 'default' },
        { kind: 'request', target: 2, reason: 'interval' },
      ],
      answers: [
        { durationMs: 300, busy: true },
        { durationMs: 0, busy: false },
      ],
    };
    // One batch at 1,250 ms (the first request's coalesce): the session answered busy (to 1,550 ms), then the agent;
    // the busy wake again at the retry, 1 s after the busy answer asked for it.
    const model = await runPlan(plan, undefined);
    expect(model.calls).toEqual([
      { target: '::agent:main:chat:0', reason: 'exec-event', startMs: 1_250, endMs: 1_550 },
      { target: 'main::', reason: 'interval', startMs: 1_550, endMs: 1_550 },
      { target: '::agent:main:chat:0', reason: 'exec-event', startMs: 2_550, endMs: 2_550 },
    ]);
    expect((await runPlan(plan, '2026.4.24')).calls).toEqual(model.calls);
    // 2026.7.1 keeps the newer default request: the exec event is no higher.
    expect((await runPlan(plan, '2026.7.1')).calls).toEqual(model.calls.map((call) => (call.target === '::agent:main:chat:0' ? { ...call, reason: 'default' } : call)));
  }, 60_000);
});
