// cached-agent (seed 004): many turns per session on reused cached agents, tool-call turns mixed with plain ones,
// small and large caches (eviction), config changes that invalidate cached agents, and /clear.
import fc from 'fast-check';
import { byTime, clearStep, configBump, faultKnobs, modelKnobs, type Scenario, settleMs, userStep } from './common.ts';

const faultPhaseMs = 200_000;

export const cachedAgent: Scenario = {
  name: 'cached-agent',
  description: 'cached agents reused over many turns, with eviction, config changes and /clear',
  focus: ['flush-cursor'],
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 3 }),
    workload: fc
      .tuple(
        fc.array(userStep(faultPhaseMs, 3), { minLength: 2, maxLength: 12 }),
        fc.array(fc.oneof(clearStep(faultPhaseMs, 3), configBump(faultPhaseMs)), { maxLength: 2 }),
      )
      .map(([users, other]) => byTime([...users, ...other])),
    faults: fc.constant([]),
    faultKnobs: faultKnobs({ sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 })) }),
    model: modelKnobs({ agentCacheSize: fc.integer({ min: 1, max: 4 }) }),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
