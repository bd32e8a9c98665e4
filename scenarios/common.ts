// Building blocks shared by the scenarios: arbitraries for workload steps, faults and knobs. Times are integers
// in milliseconds; every generated step lands inside the fault phase, so the settle window that follows is
// fault-free and long enough for the slowest retry (the slow delivery poller runs every 60 s).
import fc from 'fast-check';
import type { BugId, ModelComponents } from '../src/index.ts';
import {
  type FaultKnobs,
  type FaultStep,
  killableProcesses,
  linkPairs,
  type ModelKnobsPlan,
  noFaults,
  type Phase,
  phases,
  type Plan,
  type WorkloadStep,
} from '../sim/run/plan.ts';

/** A named scenario: a fast-check arbitrary of plans, the bugs it focuses on, and optionally components of its own. */
export interface Scenario {
  name: string;
  description: string;
  /** The bug ids this scenario focuses on. */
  focus: BugId[];
  plan: fc.Arbitrary<Plan>;
  /** Processes of the model this scenario runs with a component of its own instead of the built-in one. */
  components?: ModelComponents;
}

/** The fault-free settle window every built-in scenario ends with (long enough for the slowest retry). */
export const settleMs = 240_000;

const words = ['calendar', 'weather', 'invoice', 'flights', 'meeting notes', 'the build', 'groceries', 'a summary'];

/** A user message in one of `sessions` sessions, at a time inside the fault phase. */
export function userStep(faultPhaseMs: number, sessions: number): fc.Arbitrary<WorkloadStep> {
  return fc.record({
    kind: fc.constant('user' as const),
    atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }),
    session: fc.integer({ min: 0, max: sessions - 1 }),
    text: fc.constantFrom(...words).map((word) => `can you check ${word}?`),
  });
}

/**
 * A user message in a group chat: one in five does not mention the agent (nanoclaw's router stores it as context,
 * trigger=0, for the next message that does). Drawn with the plan, so it shrinks: a shrunk step mentions the agent.
 */
export function groupUserStep(faultPhaseMs: number, sessions: number): fc.Arbitrary<WorkloadStep> {
  return fc.tuple(userStep(faultPhaseMs, sessions), fc.integer({ min: 0, max: 4 })).map(([step, draw]) => (draw < 4 || step.kind !== 'user' ? step : { ...step, mentions: false }));
}

/**
 * A user message and up to two follow-ups 1-15 s after it in the same session (people send bursts): a follow-up
 * often arrives while the first message's turn runs, or while a killed turn waits for its retry.
 */
export function userBurst(faultPhaseMs: number, sessions: number, gapMs = { min: 1_000, max: 15_000 }): fc.Arbitrary<WorkloadStep[]> {
  return fc
    .record({
      first: userStep(faultPhaseMs, sessions),
      followUpsMs: fc.array(fc.integer(gapMs), { maxLength: 2 }),
      words: fc.array(fc.constantFrom(...words), { minLength: 2, maxLength: 2 }),
    })
    .map(({ first, followUpsMs, words: followWords }) => {
      if (first.kind !== 'user') return [first];
      let atMs = first.atMs;
      const steps: WorkloadStep[] = [first];
      followUpsMs.forEach((gapMs, index) => {
        atMs = Math.min(faultPhaseMs - 1, atMs + gapMs);
        steps.push({ kind: 'user', atMs, session: first.session, text: `and ${followWords[index] ?? 'that'}?` });
      });
      return steps;
    });
}

/** A command the node host runs for a session; its exec.finished event reaches the gateway. */
export function execStep(faultPhaseMs: number, sessions: number): fc.Arbitrary<WorkloadStep> {
  return fc.record({
    kind: fc.constant('exec' as const),
    atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }),
    session: fc.integer({ min: 0, max: sessions - 1 }),
    durationMs: fc.integer({ min: 100, max: 30_000 }),
    exitCode: fc.constantFrom(0, 1, 2),
    output: fc.constantFrom('', 'ok', 'error: file not found', 'Compiled 14 files\nwarning: unused variable'),
  });
}

/** A `/clear` typed by the user (session reset). */
export function clearStep(faultPhaseMs: number, sessions: number): fc.Arbitrary<WorkloadStep> {
  return fc.record({
    kind: fc.constant('clear' as const),
    atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }),
    session: fc.integer({ min: 0, max: sessions - 1 }),
  });
}

/** A deployed-config change: cached agents built for the old generation become stale. */
export function configBump(faultPhaseMs: number): fc.Arbitrary<WorkloadStep> {
  return fc.record({ kind: fc.constant('config-bump' as const), atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }) });
}

/** Any phase of a turn. */
export const phaseArb: fc.Arbitrary<Phase> = fc.constantFrom(...phases);

/**
 * A SIGKILL of one of `processes` when the nth event of a turn phase happens (then a restart after `restartAfterMs`,
 * 0-10 s unless given).
 */
export function killAtPhase(
  processes: readonly (typeof killableProcesses)[number][],
  phase: fc.Arbitrary<Phase> = phaseArb,
  restartAfterMs: fc.Arbitrary<number> = fc.integer({ min: 0, max: 10_000 }),
): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('kill-at-phase' as const),
    phase,
    nth: fc.integer({ min: 0, max: 12 }),
    // Mostly within a few milliseconds of the phase (inside an fsync or a transaction), sometimes later.
    delayMs: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 400 })),
    process: fc.constantFrom(...processes),
    restartAfterMs,
  });
}

/** A SIGKILL of one of `processes` at a time inside the fault phase (then a restart). */
export function timedKill(faultPhaseMs: number, processes: readonly (typeof killableProcesses)[number][] = killableProcesses): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('kill' as const),
    atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }),
    process: fc.constantFrom(...processes),
    restartAfterMs: fc.integer({ min: 0, max: 10_000 }),
  });
}

/**
 * A power loss of the gateway's machine, at a time, when the nth event of a turn phase happens, or right after the
 * nth append to a transcript (before its fsync completes, so the append can tear); the machine boots 1-20 s later.
 */
export function powerLoss(faultPhaseMs: number, phase: fc.Arbitrary<Phase> = phaseArb): fc.Arbitrary<FaultStep> {
  const restartAfterMs = fc.integer({ min: 1_000, max: 20_000 });
  return fc.oneof(
    fc.record({ kind: fc.constant('power-loss' as const), atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }), restartAfterMs }),
    fc.record({
      kind: fc.constant('power-loss-at-phase' as const),
      phase,
      nth: fc.integer({ min: 0, max: 12 }),
      delayMs: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 400 })),
      restartAfterMs,
    }),
    // Weighted: a power loss right after a transcript append is the one that can tear it.
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('power-loss-at-append' as const), nth: fc.integer({ min: 0, max: 8 }), restartAfterMs }) },
  );
}

/** A process stalls (SIGSTOP) for 1 s to 3 min, then goes on: long enough to outlast the sweep's 60 s claim rule. */
export function stall(faultPhaseMs: number, processes: readonly (typeof killableProcesses)[number][] = killableProcesses): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('stall' as const),
    atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }),
    process: fc.constantFrom(...processes),
    durationMs: fc.oneof(fc.integer({ min: 1_000, max: 30_000 }), fc.integer({ min: 30_000, max: 180_000 })),
  });
}

/** The LLM API down for 10 s to 15 min. */
export function modelOutage(faultPhaseMs: number): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('model-outage' as const),
    atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }),
    durationMs: fc.oneof(fc.integer({ min: 10_000, max: 120_000 }), fc.integer({ min: 120_000, max: 15 * 60_000 })),
  });
}

const linkIndex = fc.integer({ min: 0, max: linkPairs.length - 1 });

/** A partition (healed later), a hold (released later) or a connection reset on one link. */
export function linkFault(faultPhaseMs: number): fc.Arbitrary<FaultStep> {
  const atMs = fc.integer({ min: 0, max: faultPhaseMs - 1 });
  return fc.oneof(
    fc.record({ kind: fc.constant('partition' as const), atMs, link: linkIndex, healAfterMs: fc.integer({ min: 100, max: 20_000 }) }),
    fc.record({ kind: fc.constant('hold' as const), atMs, link: linkIndex, releaseAfterMs: fc.integer({ min: 100, max: 20_000 }) }),
    fc.record({ kind: fc.constant('reset' as const), atMs, link: linkIndex }),
  );
}

/** A connection reset on a link when the nth event of a turn phase happens. */
export function resetAtPhase(phase: fc.Arbitrary<Phase>, link: fc.Arbitrary<number> = linkIndex): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('reset-at-phase' as const),
    phase,
    nth: fc.integer({ min: 0, max: 12 }),
    delayMs: fc.integer({ min: 0, max: 30 }),
    link,
  });
}

/** The fake LLM's behaviour knobs (tool calls, repeats, stock answers) and the agent cache size; override any. */
export function modelKnobs(overrides: Partial<Record<keyof ModelKnobsPlan, fc.Arbitrary<number>>> = {}): fc.Arbitrary<ModelKnobsPlan> {
  return fc.record({
    toolCallPer1000: overrides.toolCallPer1000 ?? fc.integer({ min: 0, max: 1000 }),
    toolCallsMax: overrides.toolCallsMax ?? fc.integer({ min: 1, max: 4 }),
    repeatPer1000: overrides.repeatPer1000 ?? fc.integer({ min: 0, max: 1000 }),
    repeatOnlyPer1000: overrides.repeatOnlyPer1000 ?? fc.integer({ min: 0, max: 1000 }),
    stockAnswerPer1000: overrides.stockAnswerPer1000 ?? fc.integer({ min: 0, max: 1000 }),
    agentCacheSize: overrides.agentCacheSize ?? fc.integer({ min: 1, max: 8 }),
  });
}

/** Swarm testing: each run switches a random subset of the fault knobs on, each at a random strength. */
export function swarmFaultKnobs(): fc.Arbitrary<FaultKnobs> {
  const maybe = (max: number) => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));
  return fc.record({
    dropPer1000: maybe(150),
    duplicatePer1000: maybe(150),
    reorder: fc.boolean(),
    delayMsMax: fc.oneof(fc.constant(20), fc.integer({ min: 20, max: 3_000 })),
    diskTearPer1000: maybe(1000),
    diskWritebackPer1000: maybe(1000),
    sqlBusyPer1000: maybe(100),
    modelErrorPer1000: maybe(300),
    modelErrorStreakMax: maybe(6),
    modelSlowPer1000: maybe(200),
  });
}

/** Fault knobs with every fault off except the ones given. */
export function faultKnobs(overrides: Partial<Record<keyof FaultKnobs, fc.Arbitrary<number | boolean>>>): fc.Arbitrary<FaultKnobs> {
  const record: Record<string, fc.Arbitrary<number | boolean>> = {};
  for (const [key, value] of Object.entries(noFaults)) record[key] = overrides[key as keyof FaultKnobs] ?? fc.constant(value);
  return fc.record(record) as unknown as fc.Arbitrary<FaultKnobs>;
}

/** Sort the workload by time so plans read chronologically (and shrink the same way). */
export function byTime(steps: WorkloadStep[]): WorkloadStep[] {
  return [...steps].sort((a, b) => a.atMs - b.atMs);
}
