// scheduled-tasks (issue 24 item 2): nanoclaw's scheduled tasks, once or recurring, stored as due messages_in rows
// and run as turns beside the sessions' chat (group messages, bursts, a /clear now and then, every queue mode). Faults
// that reach them: SIGKILLs of the runner while an occurrence's turn runs (at its phases), a runner stalled past the
// sweep's claim rule (the sweep kills it and the next runner polls the same occurrence), gateway kills and power
// losses between a run's completion and the recurrence fanout (the fanout waits for the sweep's sync, so a timed
// kill lands there often), busy databases (a fanout or a claim that fails), LLM errors and outages, link faults, and
// swarm-chosen network and disk faults, second writers and a platform without idempotency keys.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import {
  byTime,
  clearStep,
  groupUserStep,
  killAtPhase,
  linkFault,
  modelKnobs,
  modelOutage,
  powerLoss,
  resetAtPhase,
  type Scenario,
  secondWriters,
  settleMs,
  stall,
  swarmFaultKnobs,
  taskPlan,
  timedKill,
  userBurst,
} from './common.ts';

const faultPhaseMs = 600_000;

export const scheduledTasks: Scenario = {
  name: 'scheduled-tasks',
  description: "nanoclaw's scheduled tasks (once and recurring) run as turns beside chat, under kills, stalls, power losses and busy fanouts",
  focus: [],
  plan: fc.integer({ min: 1, max: 3 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      tasks: fc.tuple(...Array.from({ length: sessions }, (_, session) => taskPlan(session))),
      workload: fc
        .tuple(
          fc.array(groupUserStep(faultPhaseMs, sessions), { maxLength: 8 }),
          fc.array(userBurst(faultPhaseMs, sessions, { min: 200, max: 6_000 }), { maxLength: 2 }),
          fc.array(clearStep(faultPhaseMs, sessions), { maxLength: 1 }),
        )
        .map(([users, bursts, clears]) => byTime([...users, ...bursts.flat(), ...clears])),
      faults: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: killAtPhase(['runner'], fc.constantFrom('prompt-persisted', 'model-call', 'tool-send', 'result-dispatch', 'flush')) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['runner', 'gateway', 'tool-server']) },
          stall(faultPhaseMs, ['runner', 'gateway']),
          powerLoss(faultPhaseMs),
          modelOutage(faultPhaseMs),
          linkFault(faultPhaseMs),
          resetAtPhase(fc.constantFrom('ingest', 'delivery')),
        ),
        { maxLength: 6 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 3, maxLength: 3 }),
      secondWriters: secondWriters(),
      keylessPlatform: fc.boolean(),
      faultKnobs: swarmFaultKnobs(),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
