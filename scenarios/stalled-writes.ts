// stalled-writes (issue 48 item 4): SQLite writes that take seconds to commit (a slow disk's fsync, a checkpoint, a
// busy neighbour) and hold their database's write lock meanwhile, fsyncs that take seconds, and the deadlines that
// race them: the runner's tool-call timeout (10 s) against the tool server's stalled outbound commit, nanoclaw's busy
// timeout (5 s) against another process's stalled write, the host's sweep (a claim silent for 60 s) against a turn
// stuck behind its writes, and (with the delivery mirror on, in about half the runs) OpenClaw's session write lock
// (10 s) against a transcript append whose fsync stalls under the lock.
// A deadline that gives up on a write that then lands must leave nothing twice and nothing lost: a call retried after
// its timeout finds its row (keyed by the call), a turn retried after a busy write resumes from its durable rows.
// Answers call the messaging tools often, so tool-server commits stall under a waiting runner. Faults besides:
// runner and tool-server kills (at a turn's phases and timed), power losses, process stalls, LLM errors.
import fc from 'fast-check';
import { byTime, faultKnobs, killAtPhase, modelKnobs, phaseArb, powerLoss, type Scenario, secondWriters, settleMs, stall, timedKill, userBurst, userStep, writeStallsPlan } from './common.ts';

const faultPhaseMs = 300_000;

export const stalledWrites: Scenario = {
  name: 'stalled-writes',
  description: 'SQLite writes and fsyncs that stall for seconds, raced by the tool-call timeout, the busy timeout, the session write lock and the sweep',
  focus: [],
  plan: fc.integer({ min: 1, max: 2 }).chain((sessions) =>
    fc.record({
      sessions: fc.constant(sessions),
      workload: fc
        .tuple(fc.array(userStep(faultPhaseMs, sessions), { minLength: 1, maxLength: 8 }), fc.array(userBurst(faultPhaseMs, sessions), { maxLength: 2 }))
        .map(([users, bursts]) => byTime([...users, ...bursts.flat()])),
      writeStalls: writeStallsPlan(),
      faults: fc.array(
        fc.oneof(
          { weight: 2, arbitrary: killAtPhase(['runner', 'tool-server'], phaseArb) },
          timedKill(faultPhaseMs, ['gateway', 'runner', 'tool-server']),
          powerLoss(faultPhaseMs),
          stall(faultPhaseMs, ['runner', 'gateway']),
        ),
        { maxLength: 3 },
      ),
      processing: fc.constantFrom('nanoclaw' as const, 'hermes' as const),
      secondWriters: secondWriters(),
      faultKnobs: faultKnobs({
        sqlBusyPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
        modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 150 })),
      }),
      model: modelKnobs({ toolCallPer1000: fc.integer({ min: 500, max: 1000 }), toolCallsMax: fc.integer({ min: 1, max: 3 }) }),
      faultPhaseMs: fc.constant(faultPhaseMs),
      settleMs: fc.constant(settleMs),
    }),
  ),
};
