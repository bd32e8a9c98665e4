// client-connections (issue 24 item 1): sessions chatted from OpenClaw's WebChat client, which sends chat.send over a
// WebSocket to the gateway with an idempotency key, retries a send whose answer it did not get (same key), and
// resumes its event stream on every new connection (the gateway replays the finals it missed). Beside them, sessions
// chatted through the platform. Faults that reach the client: its WebSocket dropped at each point of an exchange
// (right after a chat.send was written, while the answer is on its way, while a reply's final is on its way, right
// after a final was shown) and at random times, the drop rate of the swarm's network knobs (a lost frame breaks the
// connection), gateway kills and power losses (every connection dies with the gateway, and its memory with it), runner
// kills at a turn's phases, stalls, LLM errors and outages, busy databases.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import {
  byTime,
  clearStep,
  clientDrop,
  clientDropAt,
  clientPlan,
  killAtPhase,
  modelKnobs,
  modelOutage,
  powerLoss,
  type Scenario,
  settleMs,
  stall,
  swarmFaultKnobs,
  timedKill,
  userBurst,
  userStep,
} from './common.ts';

const faultPhaseMs = 480_000;

export const clientConnections: Scenario = {
  name: 'client-connections',
  description: "OpenClaw's WebChat client: chat.send with an idempotency key, retries and resumed event streams under socket drops, gateway kills and power losses",
  focus: [],
  plan: fc.integer({ min: 1, max: 3 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      // Session 0 is always chatted from the client; the others from the client or the platform.
      clients: clientPlan(sessions),
      workload: fc
        .tuple(
          fc.array(userStep(faultPhaseMs, sessions), { minLength: 1, maxLength: 8 }),
          fc.array(userBurst(faultPhaseMs, sessions, { min: 200, max: 6_000 }), { maxLength: 2 }),
          fc.array(clearStep(faultPhaseMs, sessions), { maxLength: 1 }),
        )
        .map(([users, bursts, clears]) => byTime([...users, ...bursts.flat(), ...clears])),
      faults: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: clientDropAt() },
          { weight: 2, arbitrary: clientDrop(faultPhaseMs) },
          { weight: 2, arbitrary: timedKill(faultPhaseMs, ['gateway', 'runner']) },
          killAtPhase(['gateway', 'runner'], fc.constantFrom('ingest', 'model-call', 'flush', 'delivery')),
          stall(faultPhaseMs, ['gateway', 'runner']),
          powerLoss(faultPhaseMs),
          modelOutage(faultPhaseMs),
        ),
        { maxLength: 8 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 3, maxLength: 3 }),
      faultKnobs: swarmFaultKnobs(),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
