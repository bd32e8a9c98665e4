// platform-refusals (issue 48 items 1 and 2): a chat platform that refuses sends with typed refusals (flood control
// with a retry-after, a chat not found, the gateway's listener not ready yet after a restart) and limits a message's
// length, so long replies go out in parts, each its own send, whose answer may be lost or late. Most runs are on a
// platform without client idempotency keys (Telegram has none), where a part sent twice is shown twice. Faults that
// meet the parts and the refusals: gateway kills and power losses (timed, and at the delivery phase: between a part's
// send and the durable count of parts taken), gateway stalls, resets of the platform's link, dropped and duplicated
// messages on it (a part lost on its way, or its answer), busy databases.
import fc from 'fast-check';
import { byTime, faultKnobs, killAtPhase, modelKnobs, platformPlan, powerLoss, resetAtPhase, type Scenario, settleMs, stall, timedKill, userBurst, userStep } from './common.ts';

const faultPhaseMs = 300_000;
const platformLink = 0;

export const platformRefusals: Scenario = {
  name: 'platform-refusals',
  description: 'a platform that refuses sends (flood control, chat not found, listener not ready) and limits length: long replies in parts, answers lost or late',
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(fc.array(userStep(faultPhaseMs, sessions), { minLength: 1, maxLength: 6 }), fc.array(userBurst(faultPhaseMs, sessions), { maxLength: 2 }))
        .map(([users, bursts]) => byTime([...users, ...bursts.flat()])),
      faults: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: killAtPhase(['gateway'], fc.constant('delivery' as const)) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['gateway', 'runner']) },
          powerLoss(faultPhaseMs, fc.constant('delivery' as const)),
          stall(faultPhaseMs, ['gateway']),
          resetAtPhase(fc.constant('delivery' as const), fc.constant(platformLink)),
        ),
        { maxLength: 4 },
      ),
      platform: platformPlan(faultPhaseMs, sessions),
      keylessPlatform: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      faultKnobs: faultKnobs({
        dropPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
        duplicatePer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 })),
        delayMsMax: fc.oneof(fc.constant(20), fc.integer({ min: 20, max: 2_000 })),
        sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
      }),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 2 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
