// The plan shape the compaction and prompt-envelope scenarios share (issue 24 items 3 and 4): one or two sessions of
// group-chat turns, bursts that grow a batch and a /clear, over ten minutes of runner-centred faults, second writers
// and key-less platforms, with one knob of the transcript's own (`shape`) drawn where each scenario's plan had it.
import fc from 'fast-check';
import { type Plan, queueModes } from '../sim/run/plan.ts';
import { byTime, clearStep, groupUserStep, killAtPhase, linkFault, modelKnobs, modelOutage, powerLoss, secondWriters, settleMs, stall, swarmFaultKnobs, timedKill, userBurst } from './common.ts';

const faultPhaseMs = 600_000;

/** The transcript's knob: a context limit, or the prompt envelope (one of them). */
interface TranscriptShape {
  compaction?: fc.Arbitrary<NonNullable<Plan['compaction']>>;
  promptEnvelope?: fc.Arbitrary<NonNullable<Plan['promptEnvelope']>>;
}

export function transcriptTurnsPlan(users: { minLength: number; maxLength: number }, shape: TranscriptShape): fc.Arbitrary<Plan> {
  return fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(
          fc.array(groupUserStep(faultPhaseMs, sessions), users),
          fc.array(userBurst(faultPhaseMs, sessions, { min: 200, max: 6_000 }), { maxLength: 3 }),
          fc.array(clearStep(faultPhaseMs, sessions), { maxLength: 1 }),
        )
        .map(([userSteps, bursts, clears]) => byTime([...userSteps, ...bursts.flat(), ...clears])),
      faults: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: killAtPhase(['runner'], fc.constantFrom('model-call', 'model-call', 'prompt-persisted', 'tool-send', 'flush')) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['runner', 'gateway', 'tool-server']) },
          stall(faultPhaseMs, ['runner', 'gateway']),
          powerLoss(faultPhaseMs, fc.constantFrom('model-call', 'prompt-persisted', 'flush')),
          modelOutage(faultPhaseMs),
          linkFault(faultPhaseMs),
        ),
        { maxLength: 6 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 2, maxLength: 2 }),
      secondWriters: secondWriters(),
      keylessPlatform: fc.boolean(),
      faultKnobs: swarmFaultKnobs(),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      ...shape,
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  );
}
