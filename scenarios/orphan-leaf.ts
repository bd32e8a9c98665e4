// orphan-leaf (seed 003): runner kills after a turn's prompt is persisted and before its reply, slow models that
// trip the sweep's claim check, transient model errors, and new prompts arriving while a turn is unanswered.
import fc from 'fast-check';
import { byTime, faultKnobs, killAtPhase, modelKnobs, type Scenario, settleMs, timedKill, userStep } from './common.ts';

const faultPhaseMs = 150_000;

export const orphanLeaf: Scenario = {
  name: 'orphan-leaf',
  description: 'runner killed between the persisted prompt and the reply; slow and failing model calls',
  focus: ['orphan-leaf'],
  plan: fc.record({
    sessions: fc.constant(1),
    workload: fc.array(userStep(faultPhaseMs, 1), { minLength: 2, maxLength: 8 }).map(byTime),
    faults: fc.array(
      fc.oneof(killAtPhase(['runner'], fc.constantFrom('prompt-persisted', 'model-call')), timedKill(faultPhaseMs, ['runner'])),
      { minLength: 1, maxLength: 3 },
    ),
    faultKnobs: faultKnobs({
      modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
      modelSlowPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
      diskTearPer1000: fc.oneof(fc.constant(0), fc.constant(1000)),
    }),
    model: modelKnobs({ toolCallPer1000: fc.integer({ min: 0, max: 300 }) }),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
