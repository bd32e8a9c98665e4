// block-streaming (issue 48 item 2): OpenClaw's block streaming of a reply (src/block-stream.ts). A chat turn's closing
// text streams in blocks of 800 to 1,200 characters (a long reply in several), each its own send through the gateway's
// delivery, one every 1.5 s, on a platform that limits length and refuses sends (flood control, a chat not found, the
// listener not ready after a restart) and whose answers may be lost or late; the final dispatch sends only what was
// not streamed. Faults that cut a stream: runner kills at the result-dispatch phase (between two blocks), timed kills
// and stalls of the runner and the gateway, power losses, busy databases (a block's write fails and ends the attempt);
// and the platform's link reset at delivery, messages on it dropped and duplicated.
import fc from 'fast-check';
import { byTime, faultKnobs, killAtPhase, modelKnobs, platformPlan, powerLoss, resetAtPhase, type Scenario, settleMs, stall, timedKill, userBurst, userStep } from './common.ts';

const faultPhaseMs = 300_000;
const platformLink = 0;

export const blockStreaming: Scenario = {
  name: 'block-streaming',
  description: 'replies streamed in blocks while the turn runs, each its own send, the final sending only the rest: cut by kills, refusals and lost answers',
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(fc.array(userStep(faultPhaseMs, sessions), { minLength: 1, maxLength: 6 }), fc.array(userBurst(faultPhaseMs, sessions), { maxLength: 2 }))
        .map(([users, bursts]) => byTime([...users, ...bursts.flat()])),
      faults: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: killAtPhase(['runner'], fc.constant('result-dispatch' as const)) },
          { weight: 2, arbitrary: killAtPhase(['gateway'], fc.constant('delivery' as const)) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['gateway', 'runner']) },
          powerLoss(faultPhaseMs, fc.constantFrom('result-dispatch' as const, 'delivery' as const)),
          stall(faultPhaseMs, ['gateway', 'runner']),
          resetAtPhase(fc.constant('delivery' as const), fc.constant(platformLink)),
        ),
        { maxLength: 4 },
      ),
      platform: platformPlan(faultPhaseMs, sessions),
      keylessPlatform: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      blockStreaming: fc.constant('on' as const),
      processing: fc.constantFrom('nanoclaw' as const, 'hermes' as const),
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
