// exec-replay (seed 000): async exec completions from the node host under reconnects, resets right after the
// gateway drains an event (so its acknowledgement is lost and the node host resends), link replays and gateway
// kills, with a little chat in between.
import fc from 'fast-check';
import { byTime, execStep, faultKnobs, killAtPhase, modelKnobs, resetAtPhase, type Scenario, settleMs, timedKill, userStep } from './common.ts';

const faultPhaseMs = 180_000;

export const execReplay: Scenario = {
  name: 'exec-replay',
  description: 'exec.finished events replayed by reconnects, resets and link duplicates; gateway kills',
  focus: ['exec-replay'],
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    workload: fc
      .tuple(fc.array(execStep(faultPhaseMs, 2), { minLength: 1, maxLength: 6 }), fc.array(userStep(faultPhaseMs, 2), { maxLength: 3 }))
      .map(([execs, users]) => byTime([...execs, ...users])),
    faults: fc.array(
      fc.oneof(
        resetAtPhase(fc.constant('ingest'), fc.constant(1)),
        killAtPhase(['gateway', 'node-host'], fc.constantFrom('ingest', 'prompt-persisted')),
        timedKill(faultPhaseMs, ['gateway']),
      ),
      { maxLength: 4 },
    ),
    faultKnobs: faultKnobs({
      duplicatePer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
      dropPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 })),
    }),
    model: modelKnobs({ toolCallPer1000: fc.constant(0) }),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
