// prompt-envelope (issue 24 item 4): OpenClaw 2026.4.24's submitted prompt and stored one (src/envelope.ts). Every chat
// run submits its prompt with the message's metadata envelope in front; the JSONL user entry is written as submitted
// and rewritten to the plain prompt only when the model call returns (a branch from its parent and a new plain entry;
// the enveloped one stays in the file off the branch). Faults that reach it: runner kills a few ms after the model call
// starts (the entry waits for its rewrite; on a flushed file it is durable) and at the other phases, timed kills and
// power losses, LLM errors and outages (a failed call leaves the enveloped entry for the retry to meet), stalls, busy
// databases, link faults, second writers (the delivery mirror appends under the write lock) and key-less platforms;
// group chat, bursts that grow a batch (collect, followup and interrupt lanes) and a /clear.
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import { byTime, clearStep, groupUserStep, killAtPhase, linkFault, modelKnobs, modelOutage, powerLoss, type Scenario, settleMs, stall, swarmFaultKnobs, timedKill, userBurst } from './common.ts';

const faultPhaseMs = 600_000;

export const promptEnvelope: Scenario = {
  name: 'prompt-envelope',
  description: "prompts submitted with OpenClaw's metadata envelope and stored plain only once the call returns, under kills, power losses, failed calls and growing batches",
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(
          fc.array(groupUserStep(faultPhaseMs, sessions), { minLength: 3, maxLength: 12 }),
          fc.array(userBurst(faultPhaseMs, sessions, { min: 200, max: 6_000 }), { maxLength: 3 }),
          fc.array(clearStep(faultPhaseMs, sessions), { maxLength: 1 }),
        )
        .map(([users, bursts, clears]) => byTime([...users, ...bursts.flat(), ...clears])),
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
      secondWriters: fc.record({ deliveryMirror: fc.constantFrom('off' as const, 'on' as const), gatewayAppend: fc.constantFrom('off' as const, 'skip-db' as const) }),
      keylessPlatform: fc.boolean(),
      faultKnobs: swarmFaultKnobs(),
      model: modelKnobs({ toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      promptEnvelope: fc.constant('submit-then-rewrite' as const),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
