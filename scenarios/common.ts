// Building blocks shared by the scenarios: arbitraries for workload steps, faults and knobs. Times are integers
// in milliseconds; every generated step lands inside the fault phase, so the settle window that follows is
// fault-free and long enough for the slowest retry (the slow delivery poller runs every 60 s).
import fc from 'fast-check';
import type { BugId, ModelComponents } from '../src/index.ts';
import {
  type ClientPlan,
  clientPoints,
  type FaultKnobs,
  type FaultStep,
  killableProcesses,
  linkPairs,
  type ModelKnobsPlan,
  noFaults,
  type Phase,
  phases,
  type Plan,
  type TaskPlan,
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

/** The second writers, drawn per run (their sabotaged modes are for tests only). */
export function secondWriters(): fc.Arbitrary<NonNullable<Plan['secondWriters']>> {
  return fc.record({ deliveryMirror: fc.constantFrom('off' as const, 'on' as const), gatewayAppend: fc.constantFrom('off' as const, 'skip-db' as const) });
}

/** The client's WebSocket dropped at a point of an exchange (the nth time it is reached), a little after it. */
export function clientDropAt(): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constant('client-drop-at' as const),
    point: fc.constantFrom(...clientPoints),
    nth: fc.integer({ min: 0, max: 8 }),
    delayMs: fc.integer({ min: 0, max: 30 }),
  });
}

/** The client's WebSocket dropped at a time inside the fault phase. */
export function clientDrop(faultPhaseMs: number): fc.Arbitrary<FaultStep> {
  return fc.record({ kind: fc.constant('client-drop' as const), atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }) });
}

/** Which of `sessions` sessions are chatted from the WebChat client: session 0 always, each other one or not. */
export function clientPlan(sessions: number): fc.Arbitrary<ClientPlan> {
  return fc.array(fc.boolean(), { minLength: sessions - 1, maxLength: sessions - 1 }).map((more) => ({ sessions: [0, ...more.flatMap((client, index) => (client ? [index + 1] : []))] }));
}

const taskPrompts = ['Post the morning digest', 'Check the build and report', 'Remind me to water the plants', 'Summarise the inbox'];

/**
 * A scheduled task of `session`: once, or 2-4 occurrences 1-3 min apart, first due 2 s to `firstDueMsMax` into the
 * run (scheduled-tasks: 3 min).
 */
export function taskPlan(session: number, firstDueMsMax = 180_000): fc.Arbitrary<TaskPlan> {
  return fc
    .record({
      prompt: fc.constantFrom(...taskPrompts),
      firstDueMs: fc.integer({ min: 2_000, max: firstDueMsMax }),
      everyMs: fc.oneof(fc.constant(null), fc.integer({ min: 60_000, max: 180_000 })),
      count: fc.integer({ min: 2, max: 4 }),
    })
    .map(({ prompt, firstDueMs, everyMs, count }) => ({ session, prompt, firstDueMs, everyMs, count: everyMs === null ? 1 : count }));
}

/**
 * A context limit of 80-320 estimated tokens (a turn adds about 30-60), so most sessions compact once or more, keeping
 * 20 tokens to a third of the limit.
 */
export function compactionKnobs(): fc.Arbitrary<NonNullable<Plan['compaction']>> {
  return fc.integer({ min: 80, max: 320 }).chain((contextTokensMax) =>
    fc.record({ contextTokensMax: fc.constant(contextTokensMax), keepRecentTokens: fc.integer({ min: 20, max: Math.floor(contextTokensMax / 3) }) }),
  );
}

/** The gateway's own heartbeat runs: a 5-60 s timeout per candidate, 0-2 fallback models, a retry 1-60 s after a failed run. */
export function heartbeatRunKnobs(): fc.Arbitrary<NonNullable<Plan['heartbeatRun']>> {
  return fc.record({
    mode: fc.constant('gateway' as const),
    timeoutMs: fc.integer({ min: 5_000, max: 60_000 }),
    fallbacks: fc.integer({ min: 0, max: 2 }),
    retryMs: fc.integer({ min: 1_000, max: 60_000 }),
  });
}

/**
 * A quiet gap (issue 44 item 4): everything timed at or after `atMs` (workload, timed faults, scheduled tasks) moves
 * `lengthMs` later and the fault phase grows by as much, so the run has a stretch with no activity and activity after
 * it, long enough for the model's retention windows to close in between. `during` the gap nothing else happens
 * (`quiet`, 11-40 min), the runner is stalled for all of it (`runner-stalled`, 36-45 min: past the sweep's 30 min
 * heartbeat ceiling even when its idle heartbeat was touched 5 min before), or the gateway's link to the node host is
 * partitioned for all of it (`node-host-cut`, 11-30 min: the node host resends what the gateway did not acknowledge
 * only after the gateway's exec key window, 10 min, closed).
 */
export interface QuietGap {
  atMs: number;
  lengthMs: number;
  during: 'quiet' | 'runner-stalled' | 'node-host-cut';
}

const minuteMs = 60_000;

export function quietGap(faultPhaseMs: number): fc.Arbitrary<QuietGap> {
  const atMs = fc.integer({ min: 0, max: faultPhaseMs - 1 });
  return fc.oneof(
    fc.record({ atMs, lengthMs: fc.integer({ min: 11 * minuteMs, max: 40 * minuteMs }), during: fc.constant('quiet' as const) }),
    fc.record({ atMs, lengthMs: fc.integer({ min: 36 * minuteMs, max: 45 * minuteMs }), during: fc.constant('runner-stalled' as const) }),
    fc.record({ atMs, lengthMs: fc.integer({ min: 11 * minuteMs, max: 30 * minuteMs }), during: fc.constant('node-host-cut' as const) }),
  );
}

const nodeHostLink = linkPairs.findIndex(([a, b]) => a === 'gateway' && b === 'node-host');

/** The plan with `gap` opened in it (see QuietGap). */
export function withQuietGap(plan: Plan, gap: QuietGap): Plan {
  const later = (atMs: number): number => (atMs >= gap.atMs ? atMs + gap.lengthMs : atMs);
  const during: FaultStep[] =
    gap.during === 'runner-stalled'
      ? [{ kind: 'stall', atMs: gap.atMs, process: 'runner', durationMs: gap.lengthMs }]
      : gap.during === 'node-host-cut'
        ? [{ kind: 'partition', atMs: gap.atMs, link: nodeHostLink, healAfterMs: gap.lengthMs }]
        : [];
  return {
    ...plan,
    workload: plan.workload.map((step) => ({ ...step, atMs: later(step.atMs) })),
    faults: [...plan.faults.map((fault) => ('atMs' in fault ? { ...fault, atMs: later(fault.atMs) } : fault)), ...during],
    ...(plan.tasks === undefined ? {} : { tasks: plan.tasks.map((task) => ({ ...task, firstDueMs: later(task.firstDueMs) })) }),
    ...(plan.lateResponses === undefined ? {} : { lateResponses: plan.lateResponses.map((burst) => ({ ...burst, atMs: later(burst.atMs) })) }),
    faultPhaseMs: plan.faultPhaseMs + gap.lengthMs,
  };
}

/** Sort the workload by time so plans read chronologically (and shrink the same way). */
export function byTime(steps: WorkloadStep[]): WorkloadStep[] {
  return [...steps].sort((a, b) => a.atMs - b.atMs);
}

/**
 * A turn typed at Hermes' dashboard (issue 44 item 5, src/dashboard.ts): a second process that shares the sessions'
 * state.db appends a user message and its answer to the session between the gateway's turns, so a cached agent of the
 * runner must be rebuilt or it answers from a stale history. For chaos to draw (with the plan's `contextAnswers` on).
 */
export function dashboardStep(faultPhaseMs: number, sessions: number): fc.Arbitrary<WorkloadStep> {
  return fc.record({
    kind: fc.constant('dashboard' as const),
    atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }),
    session: fc.integer({ min: 0, max: sessions - 1 }),
    text: fc.constantFrom(...words).map((word) => `note on ${word}`),
  });
}

/**
 * A platform that refuses sends and limits a message's length (issue 48 items 1 and 2): Telegram's 4096 characters or
 * Discord's 2000; while the faults last, flood control on up to 1 send in 4 (a retry-after of 1 s to 1-30 s), up to
 * two windows of 10 s to 3 min when a session's chat is not found, the listener not ready for up to 20 s after each
 * gateway start, up to 1 answer in 5 lost or late; and a third to four fifths of the answers long enough to go out in
 * parts. For the platform-refusals scenario, and for chaos to draw.
 */
export function platformPlan(faultPhaseMs: number, sessions: number): fc.Arbitrary<NonNullable<Plan['platform']>> {
  const maybe = (max: number) => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));
  return fc.record({
    textLimit: fc.constantFrom(4096, 2000),
    rateLimitPer1000: maybe(250),
    retryAfterMsMax: fc.integer({ min: 1, max: 30 }).map((seconds) => seconds * 1_000),
    notFound: fc.array(
      fc.record({ session: fc.integer({ min: 0, max: sessions - 1 }), atMs: fc.integer({ min: 0, max: faultPhaseMs - 1 }), durationMs: fc.integer({ min: 10_000, max: 180_000 }) }),
      { maxLength: 2 },
    ),
    notReadyMsMax: fc.oneof(fc.constant(0), fc.integer({ min: 500, max: 20_000 })),
    ambiguousPer1000: maybe(200),
    longReplyPer1000: fc.integer({ min: 300, max: 800 }),
  });
}

/**
 * Rows left pending by design (issue 48 item 6, src/late-responses.ts): 1-4 bursts of tool responses the host writes
 * after their tool gave up, each 1-30 rows in one session at a time inside the fault phase; every poll skips them and
 * they stay pending, so a burst of 10 or more above a waiting message fills a whole poll window. For the
 * rows-left-pending scenario, and for chaos to draw.
 */
export function lateResponsesPlan(faultPhaseMs: number, sessions: number): fc.Arbitrary<NonNullable<Plan['lateResponses']>> {
  return fc.array(
    fc.record({
      session: fc.integer({ min: 0, max: sessions - 1 }),
      atMs: fc.integer({ min: 500, max: faultPhaseMs - 1 }),
      count: fc.oneof(fc.integer({ min: 1, max: 9 }), { weight: 2, arbitrary: fc.integer({ min: 10, max: 30 }) }),
    }),
    { minLength: 1, maxLength: 4 },
  );
}

/**
 * Stalled writes (issue 48 item 4, sim/kernel/sqlite.ts): 20-300 in 1000 SQLite writes stall while the faults last,
 * each for 1 s up to 2-40 s (past the runner's 10 s tool-call timeout and nanoclaw's 5 s busy timeout in most runs).
 * For the stalled-writes scenario, and for chaos to draw.
 */
export function writeStallsPlan(): fc.Arbitrary<NonNullable<Plan['writeStalls']>> {
  return fc.record({
    per1000: fc.oneof(fc.integer({ min: 20, max: 100 }), fc.integer({ min: 100, max: 300 })),
    msMin: fc.constant(1_000),
    msMax: fc.integer({ min: 2_000, max: 40_000 }),
  });
}

/**
 * The gateway's cron executor (issue 48 item 5, src/cron-executor.ts): an attempt's timeout of 5-60 s (below the
 * fake LLM's slow responses, up to 90 s, so a timed-out request often answers later), 1-4 attempts, and waits of 1-60 s
 * before each retry (OpenClaw's default is 30 s, 1 min, 5 min: shortened so that a retry often starts while the
 * request it replaces still runs). For the overlapping-work scenario, and for chaos to draw.
 */
export function cronKnobs(): fc.Arbitrary<NonNullable<Plan['cron']>> {
  return fc.record({
    mode: fc.constant('fixed' as const),
    timeoutMs: fc.integer({ min: 5_000, max: 60_000 }),
    backoffMs: fc.array(fc.integer({ min: 1_000, max: 60_000 }), { minLength: 1, maxLength: 3 }),
    attemptsMax: fc.integer({ min: 1, max: 4 }),
  });
}
