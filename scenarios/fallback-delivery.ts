// fallback-delivery (issue 48 item 3): a scheduled task's output delivered on two paths, as OpenClaw's cron delivers an
// isolated job's output: the announce first, waited for 15 s, then the direct send as its fallback when the announce
// did not report delivery (src/delivery.ts deliverWithFallback). Faults that make the announce fail or look failed:
// the platform's link held or partitioned for up to 40 s (the announce or its acknowledgement waits past the 15 s),
// dropped and duplicated messages on it, resets of it at the delivery phase, gateway kills at the delivery phase and
// at times, runner kills, LLM errors; nanoclaw's tasks (once and recurring) beside chat, on a platform with keys and, in
// one run in four, without. Each path can be wrong in a run: the fallback sent beside an announce that landed, or
// none sent after an announce that was lost.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import { byTime, faultKnobs, killAtPhase, modelKnobs, resetAtPhase, type Scenario, settleMs, taskPlan, timedKill, userStep } from './common.ts';

const faultPhaseMs = 600_000;
const maybe = (max: number): fc.Arbitrary<number> => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));
const atMs = fc.integer({ min: 0, max: faultPhaseMs - 1 });
/** The platform's link (linkPairs index 0) held or partitioned for 1-40 s: past the announce's 15 s in most draws. */
const platformLinkFault = fc.oneof(
  fc.record({ kind: fc.constant('hold' as const), atMs, link: fc.constant(0), releaseAfterMs: fc.integer({ min: 1_000, max: 40_000 }) }),
  fc.record({ kind: fc.constant('partition' as const), atMs, link: fc.constant(0), healAfterMs: fc.integer({ min: 1_000, max: 40_000 }) }),
);

export const fallbackDelivery: Scenario = {
  name: 'fallback-delivery',
  description: "a scheduled task's output announced, with the direct send as its fallback, under held and lossy platform links and gateway kills",
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      tasks: fc.tuple(...Array.from({ length: sessions }, (_, session) => taskPlan(session, 240_000))),
      fallbackDelivery: fc.constant('fixed' as const),
      workload: fc.array(userStep(faultPhaseMs, sessions), { maxLength: 6 }).map(byTime),
      faults: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: platformLinkFault },
          resetAtPhase(fc.constant('delivery'), fc.constant(0)),
          killAtPhase(['gateway'], fc.constant('delivery')),
          timedKill(faultPhaseMs, ['gateway', 'runner']),
        ),
        { maxLength: 8 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 2, maxLength: 2 }),
      keylessPlatform: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      faultKnobs: faultKnobs({
        dropPer1000: maybe(150),
        duplicatePer1000: maybe(100),
        delayMsMax: fc.oneof(fc.constant(20), fc.integer({ min: 20, max: 3_000 })),
        modelErrorPer1000: maybe(200),
      }),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
