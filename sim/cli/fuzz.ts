// The fuzz driver. A campaign is a list of runs (campaign.ts): run r of a scenario draws its plan from its own
// fast-check seed, so a shard or a worker can do any run alone. Runs are handed to an executor (this thread or a
// pool of worker threads) a few at a time and their answers are consumed in run order, so the first failure of a
// scenario is the failing run with the lowest index whatever the number of workers. That run is then shrunk to a
// small plan (fuzz-task.ts) and replayed here from its seed string, so the report describes exactly what the seed
// string replays. With a determinism check (determinism-check.ts), a sample of the runs the campaign consumed is
// replayed where the campaign runs and on a thread of its own, and their trace hashes compared; the check never adds a
// run of the campaign (only consumed runs are checked) and leaves the shrink alone.
import type { SqlJsStatic } from 'sql.js';
import type { BugId } from '../../src/index.ts';
import type { Scenario } from '../../scenarios/index.ts';
import type { FailureClass, Violation } from '../checkers/index.ts';
import { assert } from '../kernel/assert.ts';
import { addCoverage, emptyCoverage, type FaultCoverage } from '../run/coverage.ts';
import { generateSpec } from '../run/generate.ts';
import { type RunResult, runSpec } from '../run/harness.ts';
import { runSeed, type Shard, shardRuns } from './campaign.ts';
import { checksRun, compareTraces, type DeterminismCheck, type DeterminismMismatch, type DeterminismOutcome } from './determinism-check.ts';
import { type DocumentedViolation, failsFor, type FuzzTask, type OnShrinkProgress, type RunReport, type RunTrace, type TaskRunOptions } from './fuzz-task.ts';
import { type Executor, inlineExecutor } from './pool.ts';
import type { OpenclawChoice } from '../real/openclaw/choice.ts';
import { decodeSeedString, encodeSeedString, runOptionsOf, type RunTags, tagsOf, verifySeedString } from './seed-string.ts';

/** How much of a campaign to run for one scenario, and what counts as a failure. */
export interface FuzzLimits {
  /** Count a run as failing only if it violates this invariant (a targeted hunt); any invariant by default. */
  invariant?: string;
  /** The runner's SessionManager: the model's own (default) or the real pi one (sim/real). */
  sessionManager?: 'model' | 'pi';
  /** Gateway parts run as a pinned OpenClaw release's (sim/real/openclaw), recorded in every seed string. */
  openclaw?: OpenclawChoice;
  /** The modules the command line loaded (--load), recorded in every seed string (a worker pool loads them too). */
  loads?: readonly string[];
  /** Called when the first failing run is known, before shrinking starts (the benchmark times detection apart from it). */
  onFirstFailure?: () => void;
  /** Runs per scenario over the whole campaign (all shards). */
  runs?: number;
  /** Or: stop starting new runs once this returns true (checked against the caller's clock). */
  deadline?: () => boolean;
  /** The shrink's budget of runs (fuzz-task.ts shrinkRunsMax unless given; tests give a small one). */
  shrinkRunsMax?: number;
  /**
   * With real code: a failing run whose every counted violation is a finding docs/MODEL.md documents about that code
   * is recorded (unshrunk) and the campaign goes on; the first run with a new violation stops it and is shrunk.
   */
  pastDocumented?: boolean;
  shard: Shard;
}

/** The first failure of a scenario, shrunk: its seed string, the violation, and the replayed run. */
export interface FuzzFailure {
  scenario: string;
  seed: string;
  invariant: string;
  class: FailureClass;
  /** Trace events of the shrunk run (the counter every step number in a report refers to). */
  steps: number;
  violations: Violation[];
  /** 1-based index of the failing run within this scenario's whole campaign (the same in every shard). */
  run: number;
  shrinkRuns: number;
  /** Whether the shrink finished (false: it stopped at its budget of shrinkRunsMax runs, and the plan may not be minimal). */
  shrinkComplete: boolean;
  shrinkRunsMax: number;
  result: RunResult;
}

/** A run the campaign went past (--past-documented): it failed only with findings docs/MODEL.md documents. */
export interface DocumentedRun {
  scenario: string;
  /** 1-based index of the run within this scenario's whole campaign. */
  run: number;
  /** The run's seed string, unshrunk. */
  seed: string;
  findings: DocumentedViolation[];
}

/** What a campaign did for one scenario: how many runs, the fault coverage, the first failure if any, and the runs gone past. */
export interface ScenarioOutcome {
  scenario: string;
  runs: number;
  failure: FuzzFailure | undefined;
  coverage: FaultCoverage;
  /** The failing runs the campaign went past, in run order (only with limits.pastDocumented). */
  documented: DocumentedRun[];
}

/** Optional parts of a campaign: where runs are done, run options, and progress hooks. */
export interface FuzzExtras {
  /** Where runs are done; this thread by default. */
  executor?: Executor;
  /** Run options for every run (components of one's own); only with the default, in-process executor. */
  runOptions?: TaskRunOptions;
  /** When a run is handed to the executor (the sharding test records these). */
  onRunStarted?: (run: { scenario: string; run: number; seed: number }) => void;
  /** When the first failure of the scenario is found and shrinking starts (1-based run index). */
  onShrinkStarted?: (run: number) => void;
  /** After each run of the shrink: runs so far and the size of the plan it is at (its last failing plan). */
  onShrinkProgress?: OnShrinkProgress;
  /** Replay a sample of the runs and compare their traces (not with components of one's own: a thread has none). */
  determinism?: DeterminismCheck;
  /** When a run's determinism check is started (0-based run index; the sampling test records these). */
  onRunChecked?: (run: { scenario: string; run: number }) => void;
  /** With a determinism check, once the scenario's checks are all done (before a failure is shrunk): what they found. */
  onDeterminism?: (outcome: DeterminismOutcome) => void;
}

interface Pending {
  run: number;
  seed: number;
  answer: Promise<RunReport>;
  /** The task again, when the run is one the determinism check replays. */
  checkTask?: FuzzTask & { kind: 'run' };
}

interface Checked {
  run: number;
  mismatch: DeterminismMismatch | undefined;
}

/**
 * Fuzz one scenario: run r of the campaign draws its plan from its own fast-check seed (so shards and workers can
 * do any run alone); the failing run with the lowest index is shrunk and replayed from its seed string.
 */
export async function fuzzScenario(
  scenario: Scenario,
  scenarioIndex: number,
  bugs: BugId[],
  campaignSeed: number,
  limits: FuzzLimits,
  sql: SqlJsStatic,
  onProgress: (runsDone: number) => void = () => {},
  extras: FuzzExtras = {},
): Promise<ScenarioOutcome> {
  assert(extras.runOptions === undefined || extras.executor === undefined, 'run options need the in-process executor');
  const executor = extras.executor ?? inlineExecutor(sql, extras.runOptions);
  const tags = campaignTags(limits, extras.runOptions);
  const coverage = emptyCoverage();
  const order = shardRuns(limits.runs, limits.shard);
  const inFlightMax = executor.workers * 2;
  const pending: Pending[] = [];
  const check = extras.determinism;
  assert(check === undefined || Object.keys(extras.runOptions?.components ?? {}).length === 0, 'the determinism check replays runs on a thread of its own, which has no components of the caller');
  // Every check started, and the few still running (at most inFlightMax, so a slow fresh thread holds few traces).
  const checks: Promise<Checked>[] = [];
  const checking: Promise<Checked>[] = [];
  const documented: DocumentedRun[] = [];
  let runs = 0;
  let launching = true;
  for (;;) {
    while (launching && pending.length < inFlightMax) {
      const next = order.next();
      if (next.done === true || limits.deadline?.() === true) {
        launching = false;
        break;
      }
      const seed = runSeed(campaignSeed, scenarioIndex, next.value);
      extras.onRunStarted?.({ scenario: scenario.name, run: next.value, seed });
      const checked = check !== undefined && checksRun(campaignSeed, scenarioIndex, next.value, check.fraction);
      const task = { kind: 'run' as const, scenario: scenario.name, bugs, seed, ...invariantOf(limits), tags, ...(checked ? { trace: true } : {}), ...(limits.pastDocumented === true ? { pastDocumented: true } : {}) };
      const answer = executor.run(task);
      // If an earlier run throws, the later answers are never awaited: keep their rejections from going unhandled.
      answer.catch(() => {});
      pending.push({ run: next.value, seed, answer, ...(checked ? { checkTask: task } : {}) });
    }
    const head = pending.shift();
    if (head === undefined) break;
    const report = await head.answer;
    runs++;
    addCoverage(coverage, report.coverage);
    onProgress(runs);
    if (check !== undefined && head.checkTask !== undefined && report.trace !== undefined) {
      extras.onRunChecked?.({ scenario: scenario.name, run: head.run });
      const done = checkRun(scenario, head, report.trace, head.checkTask, executor, check);
      done.catch(() => {});
      checks.push(done);
      checking.push(done);
      if (checking.length > inFlightMax) await checking.shift();
    }
    if (report.fails && report.documented !== undefined) {
      documented.push({ scenario: scenario.name, run: head.run + 1, seed: unshrunkSeedString(scenario, bugs, head.seed, tags), findings: report.documented });
    } else if (report.fails) {
      // Later runs may still be in flight: let them finish (their answers are not used) before shrinking.
      await Promise.allSettled(pending.map((later) => later.answer));
      await determinismOf(check, checks, extras);
      limits.onFirstFailure?.();
      extras.onShrinkStarted?.(head.run + 1);
      const failure = await shrinkFailure(scenario, bugs, head, limits, executor, sql, extras);
      return { scenario: scenario.name, runs, coverage, failure, documented };
    }
  }
  await determinismOf(check, checks, extras);
  return { scenario: scenario.name, runs, coverage, failure: undefined, documented };
}

/** The seed string of a campaign's run as drawn, before any shrink. */
function unshrunkSeedString(scenario: Scenario, bugs: BugId[], seed: number, tags: RunTags): string {
  return encodeSeedString({ scenario: scenario.name, ...tags, bugs, seed, path: undefined }, generateSpec(scenario, bugs, seed, undefined));
}

/** Replay a run where the campaign runs and on the fresh thread, at once, and compare the three traces. */
async function checkRun(scenario: Scenario, head: Pending, trace: RunTrace, task: FuzzTask & { kind: 'run' }, executor: Executor, check: DeterminismCheck): Promise<Checked> {
  const [again, fresh] = await Promise.all([executor.run(task), check.fresh.run(task)]);
  assert(again.trace !== undefined && fresh.trace !== undefined, 'a replay asked for its trace answers with it');
  const found = compareTraces([trace, again.trace, fresh.trace]);
  if (found === undefined) return { run: head.run, mismatch: undefined };
  return { run: head.run, mismatch: { scenario: scenario.name, seed: unshrunkSeedString(scenario, task.bugs, task.seed, task.tags ?? {}), run: head.run + 1, ...found } };
}

/** The scenario's checks, all finished: how many, and the mismatch of the lowest run index (whatever order they ended in). */
async function determinismOf(check: DeterminismCheck | undefined, checks: readonly Promise<Checked>[], extras: FuzzExtras): Promise<void> {
  if (check === undefined) return;
  const done = await Promise.all(checks);
  const mismatches = done.filter((one) => one.mismatch !== undefined).sort((a, b) => a.run - b.run);
  extras.onDeterminism?.({ checked: done.length, mismatch: mismatches[0]?.mismatch });
}

function invariantOf(limits: FuzzLimits): { invariant?: string } {
  return limits.invariant === undefined ? {} : { invariant: limits.invariant };
}

/** What every run of the campaign needs besides its plan, as its seed strings record it. */
function campaignTags(limits: FuzzLimits, runOptions: TaskRunOptions | undefined): RunTags {
  const custom = Object.keys(runOptions?.components ?? {}) as NonNullable<RunTags['custom']>[number][];
  return tagsOf({ ...(limits.sessionManager === undefined ? {} : { sessionManager: limits.sessionManager }), ...(limits.openclaw === undefined ? {} : { openclaw: limits.openclaw }), custom, ...(limits.loads === undefined ? {} : { loads: limits.loads }) });
}

async function shrinkFailure(
  scenario: Scenario,
  bugs: BugId[],
  head: Pending,
  limits: FuzzLimits,
  executor: Executor,
  sql: SqlJsStatic,
  extras: FuzzExtras,
): Promise<FuzzFailure> {
  const runOptions = extras.runOptions ?? {};
  const budget = limits.shrinkRunsMax === undefined ? {} : { shrinkRunsMax: limits.shrinkRunsMax };
  const shrunk = await executor.shrink({ kind: 'shrink', scenario: scenario.name, bugs, seed: head.seed, ...invariantOf(limits), tags: campaignTags(limits, runOptions), ...budget }, extras.onShrinkProgress);
  const result = await replay(scenario, shrunk.seedString, sql, runOptions);
  assert(failsFor(limits.invariant)(result), `the shrunk counterexample of ${scenario.name} passes when replayed: shrinking is not deterministic`);
  const first = result.violations.find((violation) => limits.invariant === undefined || violation.invariant === limits.invariant);
  assert(first !== undefined, 'a failing run has a violation');
  return {
    scenario: scenario.name,
    seed: shrunk.seedString,
    invariant: first.invariant,
    class: first.class,
    steps: result.sim.trace.events.length,
    violations: result.violations,
    run: head.run + 1,
    shrinkRuns: shrunk.shrinkRuns,
    shrinkComplete: shrunk.shrinkComplete,
    shrinkRunsMax: shrunk.shrinkRunsMax,
    result,
  };
}

/** Replay a seed string made by this build, as `repro` does. */
async function replay(scenario: Scenario, seedString: string, sql: SqlJsStatic, runOptions: TaskRunOptions): Promise<RunResult> {
  const decoded = decodeSeedString(seedString);
  const spec = generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path);
  verifySeedString(decoded, spec);
  return runSpec(spec, { ...runOptions, ...runOptionsOf(decoded), sql });
}
