// scheduled-tasks (issue 24 item 2): nanoclaw's scheduled tasks, once or recurring, stored as due messages_in rows
// and run as turns beside the sessions' chat. Faults that reach them: SIGKILLs of the runner while an occurrence's
// turn runs (at its phases), a runner stalled past the sweep's claim rule (the host resets the claim and the restarted
// runner polls the same occurrence while the stalled one held it), gateway kills and power losses between a run's
// completion and the recurrence fanout (timed ones land there, the fanout waits for the sweep's sync), busy databases
// (a fanout or a claim that fails) and transient LLM errors.
import fc from 'fast-check';
import type { TaskPlan } from '../sim/run/plan.ts';
import { byTime, faultKnobs, killAtPhase, modelKnobs, powerLoss, type Scenario, settleMs, stall, timedKill, userStep } from './common.ts';

const faultPhaseMs = 480_000;

const prompts = ['Post the morning digest', 'Check the build and report', 'Remind me to water the plants', 'Summarise the inbox'];

/** One task per session: once, or 2-4 occurrences 1-3 min apart, every occurrence due inside the fault phase. */
function taskPlan(session: number): fc.Arbitrary<TaskPlan> {
  return fc
    .record({
      prompt: fc.constantFrom(...prompts),
      firstDueMs: fc.integer({ min: 2_000, max: 120_000 }),
      everyMs: fc.oneof(fc.constant(null), fc.integer({ min: 60_000, max: 180_000 })),
      count: fc.integer({ min: 2, max: 4 }),
    })
    .map(({ prompt, firstDueMs, everyMs, count }) => ({ session, prompt, firstDueMs, everyMs, count: everyMs === null ? 1 : count }));
}

export const scheduledTasks: Scenario = {
  name: 'scheduled-tasks',
  description: "nanoclaw's scheduled tasks (once and recurring) run as turns under runner kills, stalls, gateway kills and busy fanouts",
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      tasks: fc.tuple(...Array.from({ length: sessions }, (_, session) => taskPlan(session))),
      workload: fc.array(userStep(faultPhaseMs, sessions), { maxLength: 6 }).map(byTime),
      faults: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: killAtPhase(['runner'], fc.constantFrom('prompt-persisted', 'model-call', 'tool-send', 'result-dispatch', 'flush')) },
          timedKill(faultPhaseMs, ['runner', 'gateway']),
          stall(faultPhaseMs, ['runner']),
          powerLoss(faultPhaseMs, fc.constantFrom('flush', 'delivery')),
        ),
        { maxLength: 4 },
      ),
      faultKnobs: faultKnobs({
        sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 80 })),
        modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200 })),
        modelErrorStreakMax: fc.integer({ min: 0, max: 3 }),
      }),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 2 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
