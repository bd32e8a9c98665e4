// overlapping-work (issue 48 item 5): scheduled tasks run by the gateway's cron executor outside the chat lane
// (src/cron-executor.ts), each attempt under a timeout of its own and retried after a backoff while the timed-out
// request still runs, as OpenClaw's cron service does; and a dependency that stays not ready after a restart for
// longer than its caller waits: the tool server, killed while a turn's tool calls reach it, restarts slowly (most
// restarts take 20 s to 2 min, past the runner's 10 s call timeout and create_event's 30 s deadline), so the caller is
// told a call failed while the call still waits in the starting server's mailbox. Beside them: chat in the task
// sessions, slow LLM responses at high rates (up to 90 s, past most attempts' timeouts), transient errors and outages,
// gateway kills while an attempt waits for its answer, runner kills, busy databases, and a calendar the agent books
// events in (effect-at-most-once judges that every action is carried out at most once, and never after a give-up).
import fc from 'fast-check';
import { queueModes } from '../sim/run/plan.ts';
import {
  byTime,
  cronKnobs,
  faultKnobs,
  killAtPhase,
  modelKnobs,
  modelOutage,
  type Scenario,
  settleMs,
  taskPlan,
  timedKill,
  userStep,
} from './common.ts';

const faultPhaseMs = 600_000;
const maybe = (max: number): fc.Arbitrary<number> => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));

export const overlappingWork: Scenario = {
  name: 'overlapping-work',
  description: "scheduled tasks run by the gateway's cron executor with a timeout and retries that overlap the run they replace, and a tool server slower to start than its caller waits",
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      tasks: fc.tuple(...Array.from({ length: sessions }, (_, session) => taskPlan(session, 240_000))),
      cron: cronKnobs(),
      workload: fc.array(userStep(faultPhaseMs, sessions), { maxLength: 6 }).map(byTime),
      faults: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: killAtPhase(['tool-server'], fc.constant('tool-send')) },
          { weight: 2, arbitrary: killAtPhase(['gateway'], fc.constant('model-call')) },
          killAtPhase(['runner'], fc.constantFrom('prompt-persisted', 'model-call', 'tool-send', 'result-dispatch', 'flush')),
          timedKill(faultPhaseMs, ['gateway', 'runner', 'tool-server']),
          modelOutage(faultPhaseMs),
        ),
        { maxLength: 6 },
      ),
      queueModes: fc.array(fc.constantFrom(...queueModes), { minLength: 2, maxLength: 2 }),
      startup: fc.record({
        msMin: fc.constant(200),
        msMax: fc.constant(3_000),
        slowPer1000: fc.constantFrom(500, 800, 1000),
        slowMsMin: fc.constant(20_000),
        slowMsMax: fc.integer({ min: 40_000, max: 120_000 }),
      }),
      faultKnobs: faultKnobs({
        modelSlowPer1000: fc.integer({ min: 200, max: 800 }),
        modelErrorPer1000: maybe(300),
        modelErrorStreakMax: maybe(3),
        sqlBusyPer1000: maybe(50),
        duplicatePer1000: maybe(100),
      }),
      model: modelKnobs({ toolCallPer1000: fc.integer({ min: 300, max: 1000 }), toolCallsMax: fc.integer({ min: 1, max: 3 }) }).map((knobs) => ({ ...knobs, effectToolPer1000: 400 })),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
