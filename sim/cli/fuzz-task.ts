// The two units of work of a fuzz campaign, as plain data in and plain data out so that a worker thread can do them
// as well as this thread: `run` executes one run of a campaign (the first plan of its fast-check seed) and says
// whether it fails; `shrink` re-runs a failing run under fast-check and shrinks it to a small plan with a
// deterministic budget (a count of runs, never a clock), so the shrunk plan and its seed string are the same on
// every machine and with any number of workers. A shrink that spends its budget while fast-check still has
// candidates to try says so (`shrinkComplete: false`): its plan is smaller than the failing run's but may not be minimal.
import fc from 'fast-check';
import type { SqlJsStatic } from 'sql.js';
import type { BugId } from '../../src/index.ts';
import { findScenario, type Scenario } from '../../scenarios/index.ts';
import { assert } from '../kernel/assert.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import type { FaultCoverage } from '../run/coverage.ts';
import { generateSpec, runArbitrary, toSpec } from '../run/generate.ts';
import { type RunOptions, type RunResult, runSpec } from '../run/harness.ts';
import type { Plan } from '../run/plan.ts';
import { codeUnderTest, matchFinding, ranRealCode } from './real-code.ts';
import { encodeSeedString, runOptionsOf, type RunTags } from './seed-string.ts';

export const shrinkRunsMax = 300;

export interface FuzzTask {
  kind: 'run' | 'shrink';
  scenario: string;
  bugs: BugId[];
  /** The run's fast-check seed (campaign.ts runSeed). */
  seed: number;
  /** Count a run as failing only if it violates this invariant; any invariant when absent. */
  invariant?: string;
  /**
   * What else the runs need, as their seed strings record it: the real pi SessionManager, components of the caller's
   * own (which only an in-process executor has), the modules the command line loaded (a worker thread loads them too).
   */
  tags?: RunTags;
  /** A shrink's budget of runs beyond the failing run itself: shrinkRunsMax unless given (tests give a small one). */
  shrinkRunsMax?: number;
  /** A run: answer with its trace too (the determinism check, determinism-check.ts, compares it with replays). */
  trace?: boolean;
  /**
   * A run with real code (fuzz --past-documented): when it fails and every violation that counts is a finding
   * docs/MODEL.md documents about that code, answer which (real-code.ts matchFinding), so the campaign can go on.
   */
  pastDocumented?: boolean;
}

/** A run's trace: its hash and its events. */
export interface RunTrace {
  hash: string;
  events: TraceEvent[];
}

export interface RunReport {
  fails: boolean;
  coverage: FaultCoverage;
  /** Only when the task asked for it. */
  trace?: RunTrace;
  /** A failing run whose every counted violation is a documented finding, when the task asked (pastDocumented). */
  documented?: DocumentedViolation[];
}

/** A violation of a run with real code that docs/MODEL.md documents: the invariant and the section that states it. */
export interface DocumentedViolation {
  invariant: string;
  section: string;
}

export interface ShrinkReport {
  seedString: string;
  /** Runs the shrink did beyond the failing run itself. */
  shrinkRuns: number;
  /**
   * Whether fast-check finished shrinking: false when it offered a candidate after the budget was spent (counted as
   * passing, unrun), so the plan may not be minimal. A shrink that ends exactly at the budget is complete.
   */
  shrinkComplete: boolean;
  /** The budget the shrink had. */
  shrinkRunsMax: number;
}

/** How big a plan is, as a shrink's progress shows it: its workload steps and its faults. */
export interface PlanSize {
  workload: number;
  faults: number;
}

export function planSize(plan: Plan): PlanSize {
  return { workload: plan.workload.length, faults: plan.faults.length };
}

/** A shrink's progress after each of its runs: runs so far, and the size of the plan it is at (its last failing plan). */
export interface ShrinkProgress {
  runs: number;
  plan: PlanSize;
}

export type OnShrinkProgress = (progress: ShrinkProgress) => void;

export function failsFor(invariant: string | undefined): (result: RunResult) => boolean {
  return (result) => (invariant === undefined ? result.verdict === 'fail' : result.violations.some((violation) => violation.invariant === invariant));
}

function realPartsOf(task: FuzzTask): ReturnType<typeof runOptionsOf> {
  return runOptionsOf(task.tags ?? {});
}

/** A task naming custom components must be done where they are (the in-process executor with those components). */
function checkComponents(task: FuzzTask, runOptions: TaskRunOptions): void {
  const given = Object.keys(runOptions.components ?? {}).sort();
  const named = [...(task.tags?.custom ?? [])].sort();
  assert(given.join(',') === named.join(','), `fuzz task names custom components [${named.join(', ')}] but its executor has [${given.join(', ')}]`);
}

function scenarioOf(task: FuzzTask): Scenario {
  const scenario = findScenario(task.scenario);
  assert(scenario !== undefined, `fuzz task names an unknown scenario ${task.scenario}`);
  return scenario;
}

/** Options of a run beyond the plan (components of one's own); only an in-process executor can carry them. */
export type TaskRunOptions = Omit<RunOptions, 'sql'>;

export async function runTask(task: FuzzTask, sql: SqlJsStatic, runOptions: TaskRunOptions = {}): Promise<RunReport> {
  assert(task.kind === 'run', 'runTask is given a run task');
  checkComponents(task, runOptions);
  const result = await runSpec(generateSpec(scenarioOf(task), task.bugs, task.seed, undefined), { ...runOptions, ...realPartsOf(task), sql });
  result.sim.dispose();
  const trace = task.trace === true ? { trace: { hash: result.traceHash, events: result.sim.trace.events } } : {};
  const fails = failsFor(task.invariant)(result);
  const documented = fails && task.pastDocumented === true ? documentedViolations(result, task.invariant) : undefined;
  return { fails, coverage: result.coverage, ...trace, ...(documented === undefined ? {} : { documented }) };
}

/**
 * The counted violations of a failing run, each matched against the findings docs/MODEL.md documents about the real
 * code that ran; undefined when the run had no real code or any of them matches none (a new failure, to be shrunk).
 */
export function documentedViolations(result: RunResult, invariant: string | undefined): DocumentedViolation[] | undefined {
  const code = codeUnderTest(result.realCode);
  if (!ranRealCode(code)) return undefined;
  const found: DocumentedViolation[] = [];
  for (const violation of result.violations) {
    if (invariant !== undefined && violation.invariant !== invariant) continue;
    const match = matchFinding(violation, code, result.sim.trace.events, result.violations);
    if (match.status === 'new') return undefined;
    if (!found.some((seen) => seen.invariant === violation.invariant && seen.section === match.section)) found.push({ invariant: violation.invariant, section: match.section });
  }
  return found.length === 0 ? undefined : found;
}

export async function shrinkTask(task: FuzzTask, sql: SqlJsStatic, runOptions: TaskRunOptions = {}, onProgress: OnShrinkProgress = () => {}): Promise<ShrinkReport> {
  assert(task.kind === 'shrink', 'shrinkTask is given a shrink task');
  checkComponents(task, runOptions);
  const scenario = scenarioOf(task);
  const fails = failsFor(task.invariant);
  const budget = task.shrinkRunsMax ?? shrinkRunsMax;
  assert(Number.isInteger(budget) && budget >= 0, `a shrink's budget must be a non-negative integer, got ${budget}`);
  let shrinkRuns = -1;
  let cutOff = false;
  let current: PlanSize | undefined;
  const property = fc.asyncProperty(runArbitrary(scenario), async (value: [Plan, number]) => {
    // The first call is the failing run itself; then a fixed budget of shrink runs, after which every further
    // candidate counts as passing, unrun: fast-check still had one to try, so the shrink did not finish.
    if (shrinkRuns >= budget) {
      cutOff = true;
      return true;
    }
    shrinkRuns++;
    const result = await runSpec(toSpec(scenario, task.bugs, value), { ...runOptions, ...realPartsOf(task), sql });
    result.sim.dispose();
    const failed = fails(result);
    // fast-check goes on from each failing candidate: the last one is the plan the shrink is at.
    if (failed || current === undefined) current = planSize(value[0]);
    onProgress({ runs: shrinkRuns, plan: current });
    return !failed;
  });
  const outcome = await fc.check(property, { seed: task.seed, numRuns: 1 });
  assert(outcome.failed, `run of ${task.scenario} with seed ${task.seed} passes when shrinking starts: runs are not deterministic`);
  const value = outcome.counterexample?.[0] as [Plan, number];
  const path = outcome.counterexamplePath ?? undefined;
  const seedString = encodeSeedString({ scenario: scenario.name, ...task.tags, bugs: task.bugs, seed: task.seed, path }, toSpec(scenario, task.bugs, value));
  return { seedString, shrinkRuns: Math.max(0, shrinkRuns), shrinkComplete: !cutOff, shrinkRunsMax: budget };
}

export function doTask(task: FuzzTask, sql: SqlJsStatic, runOptions: TaskRunOptions = {}, onShrinkProgress?: OnShrinkProgress): Promise<RunReport | ShrinkReport> {
  return task.kind === 'run' ? runTask(task, sql, runOptions) : shrinkTask(task, sql, runOptions, onShrinkProgress);
}
