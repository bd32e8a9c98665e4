// heartbeat-runs (issue 24 item 5): OpenClaw's heartbeat as the gateway's own run (src/heartbeat-run.ts). Exec
// completions from the node host wake the heartbeat; the gateway inspects the session's system events, asks the LLM
// under the run's timeout with 0 to 2 fallback models, and only once the row with the prompt and its answer is durable
// consumes the events and acknowledges them to the node host; the runner then persists and delivers that answer. Faults
// that reach it: slow LLM responses past the run's timeout, transient errors and error streaks (every candidate can
// fail, and the run is retried later), LLM outages, gateway kills while the run waits for its answer and around the
// row, runner and node-host kills, resets that lose the node host's acknowledgement (it resends), link duplicates and
// drops; chat in between (a message that arrives during a run makes the gateway's row wait for the next wake).
import fc from 'fast-check';
import { byTime, execStep, faultKnobs, heartbeatRunKnobs, killAtPhase, modelKnobs, modelOutage, resetAtPhase, type Scenario, settleMs, timedKill, userStep } from './common.ts';

const faultPhaseMs = 180_000;
const maybe = (max: number): fc.Arbitrary<number> => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));

export const heartbeatRuns: Scenario = {
  name: 'heartbeat-runs',
  description: "the heartbeat as the gateway's own run with a timeout and fallback models, under slow and failing LLM calls, outages, gateway kills mid-run and replayed exec events",
  focus: [],
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    workload: fc
      .tuple(fc.array(execStep(faultPhaseMs, 2), { minLength: 1, maxLength: 8 }), fc.array(userStep(faultPhaseMs, 2), { maxLength: 3 }))
      .map(([execs, users]) => byTime([...execs, ...users])),
    faults: fc.array(
      fc.oneof(
        resetAtPhase(fc.constant('ingest'), fc.constant(1)),
        killAtPhase(['gateway'], fc.constantFrom('ingest', 'model-call', 'prompt-persisted')),
        killAtPhase(['runner', 'node-host']),
        timedKill(faultPhaseMs, ['gateway', 'runner']),
        modelOutage(faultPhaseMs),
      ),
      { maxLength: 5 },
    ),
    faultKnobs: faultKnobs({
      duplicatePer1000: maybe(300),
      dropPer1000: maybe(50),
      modelErrorPer1000: maybe(500),
      modelErrorStreakMax: maybe(4),
      modelSlowPer1000: maybe(500),
    }),
    model: modelKnobs(),
    heartbeatRun: heartbeatRunKnobs(),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
