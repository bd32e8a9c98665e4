// second-writer (issue 44 item 5): Hermes' dashboard, a second process sharing the sessions' state.db, appends turns of
// its own to a session between the gateway's turns, while the runner's cached agents serve the platform's messages
// (small caches, so agents are also evicted and rebuilt). The fake LLM's answers name the newest turn of the context
// they were given, so a turn answered from a stale history says so, and context-holds-durable-turns judges every
// request's context. Faults: runner and gateway kills (timed and at a phase), LLM errors and slow answers, busy
// databases, a /clear (the next session starts empty) and config bumps (a signature rebuild).
import fc from 'fast-check';
import { byTime, clearStep, configBump, dashboardStep, faultKnobs, killAtPhase, modelKnobs, type Scenario, settleMs, timedKill, userBurst } from './common.ts';

const faultPhaseMs = 200_000;

export const secondWriter: Scenario = {
  name: 'second-writer',
  description: "Hermes' dashboard appends turns to a session's state.db between the gateway's turns of cached agents",
  focus: [],
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    workload: fc
      .tuple(
        fc.array(userBurst(faultPhaseMs, 2), { minLength: 2, maxLength: 8 }),
        fc.array(dashboardStep(faultPhaseMs, 2), { minLength: 1, maxLength: 5 }),
        fc.array(fc.oneof(clearStep(faultPhaseMs, 2), configBump(faultPhaseMs)), { maxLength: 1 }),
      )
      .map(([bursts, dashboard, other]) => byTime([...bursts.flat(), ...dashboard, ...other])),
    faults: fc.array(fc.oneof(timedKill(faultPhaseMs, ['runner', 'gateway']), killAtPhase(['runner'])), { maxLength: 2 }),
    faultKnobs: faultKnobs({
      sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
      modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 150 })),
      modelSlowPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
    }),
    model: modelKnobs({ agentCacheSize: fc.integer({ min: 1, max: 3 }) }),
    contextAnswers: fc.constant(true),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
