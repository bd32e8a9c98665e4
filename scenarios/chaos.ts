// chaos: every part and every fault type, tuned to no bug. Several sessions, chat (some group messages that do not
// mention the agent), exec completions, /clear and config changes over simulated hours; swarm testing switches a
// random subset of the fault knobs on per run, and kills, power losses, stalls, LLM outages, partitions, holds and
// resets land at random times and at random turn phases.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import {
  byTime,
  clearStep,
  configBump,
  execStep,
  groupUserStep,
  killAtPhase,
  linkFault,
  modelKnobs,
  modelOutage,
  powerLoss,
  resetAtPhase,
  type Scenario,
  settleMs,
  stall,
  swarmFaultKnobs,
  timedKill,
  phaseArb,
} from './common.ts';

const faultPhaseMsMax = 3 * 3_600_000;

export const chaos: Scenario = {
  name: 'chaos',
  description: 'every component and fault type with swarm testing, several sessions over simulated hours',
  focus: [],
  plan: fc.integer({ min: 10 * 60_000, max: faultPhaseMsMax }).chain((faultPhaseMs) =>
    fc.record({
      sessions: fc.integer({ min: 1, max: 4 }),
      workload: fc
        .tuple(
          fc.array(groupUserStep(faultPhaseMs, 4), { minLength: 1, maxLength: 24 }),
          fc.array(execStep(faultPhaseMs, 4), { maxLength: 8 }),
          fc.array(fc.oneof(clearStep(faultPhaseMs, 4), configBump(faultPhaseMs)), { maxLength: 2 }),
        )
        .map(([users, execs, other]) => byTime([...users, ...execs, ...other])),
      faults: fc.array(
        fc.oneof(
          timedKill(faultPhaseMs),
          killAtPhase(['gateway', 'runner', 'tool-server', 'node-host'], phaseArb),
          linkFault(faultPhaseMs),
          resetAtPhase(phaseArb),
          { weight: 2, arbitrary: powerLoss(faultPhaseMs) },
          modelOutage(faultPhaseMs),
          stall(faultPhaseMs),
        ),
        { maxLength: 10 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 4, maxLength: 4 }),
      // The second writers, swarm-chosen per run (their sabotaged modes are for tests only).
      secondWriters: fc.record({ deliveryMirror: fc.constantFrom('off' as const, 'on' as const), gatewayAppend: fc.constantFrom('off' as const, 'skip-db' as const) }),
      faultKnobs: swarmFaultKnobs(),
      model: modelKnobs(),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
