// rows-left-pending (issue 48 item 6): rows a poll skips on purpose. Tool responses the host writes after their tool
// gave up (src/late-responses.ts) stay pending in a session's inbound.db for good, in bursts of 1-30, often ten or more
// above messages that wait: behind a slow turn (slow and failing LLM responses), a killed or stalled runner, a claim the
// host reset with backoff, or a lane that runs one message at a time (followup, Hermes' processing). Rows the runner
// acknowledged stay pending too until the host's sweep syncs them. The fixed poll drops both before it takes the newest
// 10 due rows; one that limits first (nanoclaw as released, `pollOrder: 'limit-first'`, tests only) never fetches a
// message ten skipped rows sit above. Faults: runner kills at a turn's phases and timed ones, gateway kills (a burst
// written again on the restart is one row each), power losses, stalls, busy databases, LLM errors and outages.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import {
  byTime,
  faultKnobs,
  groupUserStep,
  killAtPhase,
  lateResponsesPlan,
  modelKnobs,
  modelOutage,
  phaseArb,
  powerLoss,
  type Scenario,
  settleMs,
  stall,
  timedKill,
  userBurst,
} from './common.ts';

const faultPhaseMs = 300_000;

export const rowsLeftPending: Scenario = {
  name: 'rows-left-pending',
  description: 'tool responses left pending by design, in bursts above waiting messages: no poll window they fill may starve a message',
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(fc.array(groupUserStep(faultPhaseMs, sessions), { minLength: 1, maxLength: 10 }), fc.array(userBurst(faultPhaseMs, sessions), { maxLength: 3 }))
        .map(([users, bursts]) => byTime([...users, ...bursts.flat()])),
      lateResponses: lateResponsesPlan(faultPhaseMs, sessions),
      faults: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: killAtPhase(['runner'], phaseArb) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['gateway', 'runner']) },
          powerLoss(faultPhaseMs),
          stall(faultPhaseMs, ['runner', 'gateway']),
          modelOutage(faultPhaseMs),
        ),
        { maxLength: 4 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: sessions, maxLength: sessions }),
      processing: fc.constantFrom('nanoclaw' as const, 'hermes' as const),
      faultKnobs: faultKnobs({
        sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
        modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200 })),
        modelErrorStreakMax: fc.integer({ min: 0, max: 4 }),
        modelSlowPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 100, max: 500 })),
      }),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 2 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
