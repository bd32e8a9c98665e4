// `gatesim fuzz`: check the options (all bad input is refused before anything is started or written), run the
// campaign scenario by scenario on one or more workers, and report: text or JSON on stdout, progress on stderr,
// optionally a folder of artifacts per failure (named by its seed string) and a JUnit file, written whole at the end.
// With --check-determinism, a sample of the runs is replayed and their traces compared (determinism-check.ts); a run
// of one plan that gave two traces fails the campaign with an exit status of its own (exit-codes.ts, nondeterminism).
import type { BugId } from '../../src/index.ts';
import { findScenario, type Scenario, scenarioNames, scenarios } from '../../scenarios/index.ts';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { addCoverage, coverageRows, emptyCoverage, type FaultCoverage } from '../run/coverage.ts';
import { type Shard, shardRunCount, wholeCampaign } from './campaign.ts';
import { pc } from './colors.ts';
import { checkFractionDefault, type DeterminismMismatch, type DeterminismOutcome, mismatchLines } from './determinism-check.ts';
import { exitCodeFor, exitCodes } from './exit-codes.ts';
import { type DocumentedRun, type FuzzFailure, fuzzScenario, type ScenarioOutcome } from './fuzz.ts';
import { type OnShrinkProgress, shrinkRunsMax } from './fuzz-task.ts';
import { junitXml } from './junit.ts';
import { loadSpecifier } from './load.ts';
import type { OpenclawChoice } from '../real/openclaw/choice.ts';
import { openclawInstalled, OpenclawWorkspaceMissingError } from '../real/openclaw/releases.ts';
import { type Executor, freshThreadExecutor, inlineExecutor, poolExecutor, type WorkerSetup } from './pool.ts';
import { releaseLoadingLine, startProgress } from './progress.ts';
import { artifactFolderName, checkPathText, checkWritableFile, claimArtifactDir, freshSeed, isDirectory, prepareArtifactDir, recordArtifacts, removeIfEmpty, samePath, wallNowMs, writeArtifact, writeFolderWhole } from './real.ts';
import { codeUnderTest, matchFinding, ranRealCode } from './real-code.ts';
import { coverageText, formatMs, runText, shrinkText, writeArtifacts } from './report.ts';
import { cliInvocation, reproduceHint } from './seed-string.ts';

export const workersMax = 64;

export class UsageError extends Error {}

export interface FuzzOptions {
  invariant?: string;
  sessionManager?: 'model' | 'pi';
  openclaw?: OpenclawChoice;
  scenario?: string;
  all?: boolean;
  bugs?: BugId[];
  runs?: number;
  seconds?: number;
  shard?: Shard;
  seed?: number;
  workers?: number;
  junit?: string;
  artifacts?: string;
  json?: boolean;
  /** Print the whole fault-coverage table (rows by turn phase) instead of its summary. */
  coverage?: boolean;
  /** The modules the command line loaded (--load): every worker loads them, every seed string names them. */
  loads?: readonly string[];
  /** Replay this fraction of the runs (true: checkFractionDefault) and compare their traces (determinism-check.ts). */
  checkDeterminism?: number | true;
  /** The shrink's budget of runs for each failure (fuzz-task.ts shrinkRunsMax unless given; 0: no shrink). */
  shrinkRuns?: number;
  /** With real code: go on past a run that fails only with findings docs/MODEL.md documents about it (fuzz.ts). */
  pastDocumented?: boolean;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

function chooseScenarios(options: FuzzOptions): Scenario[] {
  if ((options.scenario === undefined) === (options.all !== true)) throw new UsageError('fuzz needs exactly one of --scenario <name> or --all');
  if (options.all === true) return [...scenarios];
  const scenario = findScenario(options.scenario as string);
  if (scenario === undefined) throw new UsageError(`unknown scenario "${options.scenario}" (known: ${scenarioNames.join(', ')})`);
  return [scenario];
}

/** Every check on the options, before any file is touched or any run started; true when it created the artifacts folder. */
function checkOptions(options: FuzzOptions, runs: number | undefined): boolean {
  if (options.runs !== undefined && options.seconds !== undefined) throw new UsageError('give --runs or --seconds, not both');
  const shard = options.shard;
  if (shard !== undefined && options.seconds !== undefined) throw new UsageError('--shard needs --runs, not --seconds: a campaign bounded by time has no fixed set of runs to split into shards');
  if (shard !== undefined && options.seed === undefined) throw new UsageError('--shard needs --seed: the shards of one campaign must share its seed');
  if (shard !== undefined && runs !== undefined && shardRunCount(runs, shard) === 0) {
    throw new UsageError(`shard ${shard.index + 1}/${shard.count} has no runs to do: --runs ${runs} gives fewer runs per scenario than ${shard.index + 1}`);
  }
  if (options.pastDocumented === true && options.openclaw === undefined && options.sessionManager !== 'pi') {
    throw new UsageError("--past-documented needs real code (--openclaw or --session-manager pi): docs/MODEL.md documents findings about real code only, and gatesim's fixed model has none to go past");
  }
  if (options.openclaw !== undefined && !openclawInstalled(options.openclaw.release)) throw new UsageError(new OpenclawWorkspaceMissingError(options.openclaw.release).message);
  if (options.workers !== undefined && options.workers > workersMax) throw new UsageError(`--workers must be at most ${workersMax}, got ${options.workers}`);
  for (const [flag, path] of [['--junit', options.junit], ['--artifacts', options.artifacts]] as const) {
    const problem = path === undefined ? undefined : checkPathText(path, flag);
    if (problem !== undefined) throw new UsageError(problem);
  }
  if (options.junit !== undefined && options.artifacts !== undefined && samePath(options.junit, options.artifacts)) {
    throw new UsageError(`--junit and --artifacts name the same path ${options.junit}: give the JUnit file a path of its own`);
  }
  if (options.junit !== undefined) {
    const problem = checkWritableFile(options.junit, 'JUnit');
    if (problem !== undefined) throw new UsageError(problem);
  }
  if (options.artifacts === undefined) return false;
  const existed = isDirectory(options.artifacts);
  const problem = prepareArtifactDir(options.artifacts) ?? claimArtifactDir(options.artifacts);
  if (problem !== undefined) {
    if (!existed) removeIfEmpty(options.artifacts);
    throw new UsageError(problem);
  }
  return !existed;
}

export async function fuzzCommand(options: FuzzOptions): Promise<number> {
  const chosen = chooseScenarios(options);
  const runs = options.seconds === undefined ? (options.runs ?? 200) : undefined;
  const createdArtifacts = checkOptions(options, runs);
  const bugs = options.bugs ?? [];
  const shard = options.shard ?? wholeCampaign;
  const campaignSeed = options.seed ?? freshSeed();
  const sql = await loadSqlJs();
  const workers = options.workers ?? 1;
  const loads = options.loads ?? [];
  const setup: WorkerSetup = { loads: loads.map((module) => loadSpecifier(module, process.cwd())), cwd: process.cwd() };
  const executor: Executor = workers === 1 ? inlineExecutor(sql) : poolExecutor(workers, setup);
  const fraction = checkFractionOf(options);
  // The thread of its own starts at the first run the check samples.
  const determinism = fraction === undefined ? undefined : { fraction, fresh: freshThreadExecutor(setup) };
  const started = wallNowMs();
  const perShard = runs === undefined ? undefined : shardRunCount(runs, shard);
  const progress = startProgress({ scenarios: chosen.length, runsPerScenario: perShard, seconds: options.seconds }, process.stderr.isTTY === true, (line) => process.stderr.write(`${line}\n`));
  const say = (line: string): void => (options.json === true ? undefined : progress.print(line));
  say(`fuzz campaign seed ${campaignSeed}, bugs: ${bugs.join(', ') || 'none'}, ${runs === undefined ? `${options.seconds}s` : `${runs} runs`} per scenario${shard.count > 1 ? `, shard ${shard.index + 1}/${shard.count} (${perShard} runs per scenario)` : ''}, ${workers} worker(s)${fraction === undefined ? '' : `, determinism checked on ${fraction} of the runs`}`);
  // A real OpenClaw release loads inside the first run (sim/run/harness.ts), up to about 20 s with nothing printed: say so first.
  if (options.openclaw !== undefined) progress.note(`fuzz: ${releaseLoadingLine(options.openclaw)}`);
  const outcomes: ScenarioOutcome[] = [];
  const checks: DeterminismOutcome[] = [];
  try {
    for (const [position, scenario] of chosen.entries()) {
      const scenarioStarted = wallNowMs();
      const deadline = options.seconds === undefined ? undefined : () => wallNowMs() - scenarioStarted > (options.seconds as number) * 1_000;
      const limits = { ...(runs === undefined ? {} : { runs }), ...(deadline === undefined ? {} : { deadline }), ...(options.invariant === undefined ? {} : { invariant: options.invariant }), ...(options.sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}), ...(options.openclaw === undefined ? {} : { openclaw: options.openclaw }), ...(options.pastDocumented === true ? { pastDocumented: true } : {}), ...(options.shrinkRuns === undefined ? {} : { shrinkRunsMax: options.shrinkRuns }), loads, shard };
      let shrinkProgress: OnShrinkProgress | undefined;
      const budget = options.shrinkRuns ?? shrinkRunsMax;
      const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, campaignSeed, limits, sql, (done) => progress.update(scenario.name, position, done), {
        executor,
        onShrinkStarted: (run) => {
          progress.note(`fuzz: ${scenario.name} failed at run ${run}; shrinking it (at most ${budget} runs)`);
          shrinkProgress = progress.shrinking(scenario.name, budget);
        },
        onShrinkProgress: (shrunk) => shrinkProgress?.(shrunk),
        ...(determinism === undefined ? {} : { determinism, onDeterminism: (checked: DeterminismOutcome) => checks.push(checked) }),
      });
      outcomes.push(outcome);
      const failure = outcome.failure;
      if (failure !== undefined && options.artifacts !== undefined) {
        const artifacts = options.artifacts;
        writeFolderWhole(`${artifacts}/${artifactFolderName(failure.seed)}`, (into) => writeArtifacts(into, failure.seed, failure.result));
        recordArtifacts(artifacts, outcomes.flatMap((done) => (done.failure === undefined ? [] : [artifactFolderName(done.failure.seed)])));
      }
      if (options.json !== true) for (const line of outcomeLines(outcome, checks[position], options.artifacts)) progress.print(line);
    }
  } finally {
    progress.stop();
    await Promise.all([executor.close(), determinism?.fresh.close()]);
  }
  const wallMs = Math.round(wallNowMs() - started);
  return finish(options, { bugs, campaignSeed, shard, outcomes, wallMs }, determinism === undefined ? undefined : checks, createdArtifacts);
}

function finish(options: FuzzOptions, campaign: { bugs: BugId[]; campaignSeed: number; shard: Shard; outcomes: ScenarioOutcome[]; wallMs: number }, checks: readonly DeterminismOutcome[] | undefined, createdArtifacts: boolean): number {
  const { outcomes, wallMs, campaignSeed } = campaign;
  const coverage = emptyCoverage();
  for (const outcome of outcomes) addCoverage(coverage, outcome.coverage);
  const failures = outcomes.flatMap((outcome) => (outcome.failure === undefined ? [] : [outcome.failure]));
  const documented = outcomes.flatMap((outcome) => outcome.documented);
  const firstFailureRun = failures.length === 0 ? null : Math.min(...failures.map((failure) => failure.run));
  const totalRuns = outcomes.reduce((sum, outcome) => sum + outcome.runs, 0);
  const checked = checks?.reduce((sum, check) => sum + check.checked, 0);
  const mismatches = (checks ?? []).flatMap((check) => (check.mismatch === undefined ? [] : [check.mismatch]));
  // A run of one plan that gave two traces makes every verdict and seed string of the campaign doubtful: it decides.
  const code = mismatches.length > 0 ? exitCodes.nondeterminism : exitCodeFor(failures.flatMap((failure) => failure.violations.map((violation) => violation.class)));
  // The paths were checked before the campaign; should a write still fail, say so without hiding the verdict.
  let writeFailed = false;
  const write = (what: string, action: () => void): void => {
    try {
      action();
    } catch (error) {
      writeFailed = true;
      process.stderr.write(`gatesim: could not write ${what}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
    }
  };
  if (options.junit !== undefined) write(`the JUnit file ${options.junit}`, () => writeArtifact(options.junit as string, junitXml(campaign)));
  // A folder this campaign created and found nothing to put in is removed; a folder the user had is kept.
  if (options.artifacts !== undefined && failures.length === 0) write(`the artifacts list in ${options.artifacts}`, () => (createdArtifacts ? removeIfEmpty(options.artifacts as string) : recordArtifacts(options.artifacts as string, [])));
  if (options.json === true) {
    const scenarioRuns = outcomes.map((outcome) => ({ scenario: outcome.scenario, runs: outcome.runs, firstFailureRun: outcome.failure?.run ?? null, ...(options.pastDocumented === true ? { documentedRuns: outcome.documented.length } : {}) }));
    const determinism = checked === undefined ? {} : { determinism: { fraction: checkFractionOf(options), checked, mismatches } };
    const past = options.pastDocumented === true ? { documented } : {};
    print(JSON.stringify({ runs: totalRuns, failures: failures.map(failureJson), firstFailureRun, scenarios: scenarioRuns, wallMs, campaignSeed, coverage, ...past, ...determinism }));
  } else {
    const past = options.pastDocumented === true ? `, ${documented.length} run(s) gone past with documented findings only` : '';
    print(`\n${totalRuns} runs in ${formatMs(wallMs)} wall, ${failures.length} failing scenario(s)${past}`);
    if (checked !== undefined) print(determinismSummary(checked, mismatches));
    if (options.coverage === true) {
      print(pc.bold('fault coverage (faults landed, by the turn phase they landed in)'));
      print(coverageText(coverage));
    } else print(coverageSummary(coverage));
    for (const line of failureList(failures)) print(line);
    for (const line of documentedList(documented)) print(line);
    print(mismatches.length > 0 ? nondeterminismStep(mismatches) : nextStep(failures, campaign.bugs, documented));
  }
  for (const failure of failures) failure.result.sim.dispose();
  return writeFailed && code === 0 ? 3 : code;
}

export function failureJson(failure: FuzzFailure): Record<string, unknown> {
  const first = failure.violations.find((violation) => violation.invariant === failure.invariant);
  const code = codeUnderTest(failure.result.realCode);
  return {
    scenario: failure.scenario,
    seed: failure.seed,
    invariant: failure.invariant,
    class: failure.class,
    message: first?.message ?? '',
    steps: failure.steps,
    run: failure.run,
    shrinkRuns: failure.shrinkRuns,
    // Whether the shrink finished; false: it stopped at its budget of shrinkRunsMax runs, and the plan may not be minimal.
    shrinkComplete: failure.shrinkComplete,
    shrinkRunsMax: failure.shrinkRunsMax,
    // Whose code failed: the real code that ran, and (with real code) whether docs/MODEL.md documents the finding.
    realCode: code,
    ...(first !== undefined && ranRealCode(code) ? { finding: matchFinding(first, code, failure.result.sim.trace.events, failure.result.violations) } : {}),
  };
}

/** The fraction of the runs --check-determinism replays; undefined without it. */
function checkFractionOf(options: FuzzOptions): number | undefined {
  return options.checkDeterminism === true ? checkFractionDefault : options.checkDeterminism;
}

/** One line on the determinism check: how many runs it replayed, and whether every one gave one trace. */
function determinismSummary(checked: number, mismatches: readonly DeterminismMismatch[]): string {
  const head = `determinism: ${checked} run(s) checked, each replayed where the campaign runs and on a fresh worker thread`;
  if (mismatches.length === 0) return `${head}: every trace the same`;
  return pc.red(`${head}; ${mismatches.length} scenario(s) gave two traces of one plan: ${mismatches.map((mismatch) => `${mismatch.scenario} run ${mismatch.run}`).join(', ')}`);
}

/** What to do about a run that gave two traces: find what its divergent event read besides the plan. */
function nondeterminismStep(mismatches: readonly DeterminismMismatch[]): string {
  const first = mismatches[0] as DeterminismMismatch;
  return `next: find what the first divergent event of ${first.scenario} run ${first.run} read besides its plan (module-level state, the host's clock or randomness, a Map or Set filled elsewhere); replay the run with: ${reproduceHint(first.seed)}`;
}

/** One line on the fault coverage: how many rows (fault types and shapes) were reached, and which never were. */
export function coverageSummary(coverage: FaultCoverage): string {
  const never = coverageRows.filter((row) => Object.values(coverage[row]).every((count) => count === 0));
  const reached = coverageRows.length - never.length;
  const head = `fault coverage: ${reached} of ${coverageRows.length} fault types and shapes landed`;
  return never.length === 0 ? `${head} (--coverage prints them by turn phase)` : `${head}; ${pc.yellow(`never: ${never.join(', ')}`)} (--coverage prints the table by turn phase)`;
}

/** The campaign's failures, one short block each: scenario, invariant, seed string and how to replay it. */
function failureList(failures: readonly FuzzFailure[]): string[] {
  if (failures.length === 0) return [];
  return [
    pc.bold('failures'),
    ...failures.flatMap((failure) => [`  ${pc.red(failure.scenario)}: ${failure.invariant} (${failure.class})`, `    seed: ${failure.seed}`, `    reproduce: ${reproduceHint(failure.seed)}`]),
  ];
}

/** How many runs of the list the text report names with their seed strings (--json names them all). */
const documentedListedMax = 5;

/** The runs gone past (--past-documented): how many per documented finding, and the first few with their seed strings. */
function documentedList(documented: readonly DocumentedRun[]): string[] {
  if (documented.length === 0) return [];
  const counts = new Map<string, number>();
  for (const run of documented) {
    for (const found of run.findings) {
      const finding = `${found.invariant}: docs/MODEL.md "${found.section}"`;
      counts.set(finding, (counts.get(finding) ?? 0) + 1);
    }
  }
  const more = documented.length - documentedListedMax;
  return [
    pc.bold('gone past: runs that failed only with findings docs/MODEL.md documents about the real code that ran'),
    ...[...counts].map(([finding, runs]) => `  ${pc.yellow(finding)} in ${runs} run(s)`),
    ...documented.slice(0, documentedListedMax).flatMap((run) => [`  ${run.scenario} run ${run.run}: ${run.findings.map((found) => found.invariant).join(', ')}`, `    seed (unshrunk): ${run.seed}`]),
    ...(more > 0 ? [`  and ${more} more (--json lists them all)`] : []),
  ];
}

/** What to try next: replay a failure with every bug off, or, after a clean campaign, hunt a seed bug (or replay a run gone past). */
function nextStep(failures: readonly FuzzFailure[], bugs: readonly BugId[], documented: readonly DocumentedRun[]): string {
  const failure = failures[0];
  if (failure !== undefined) {
    const hint = reproduceHint(failure.seed);
    const withBugsOff = bugs.length > 0 && hint.startsWith(cliInvocation()) ? `${hint} --bugs none` : hint;
    return `next: read the report above, then replay it${bugs.length > 0 ? ' with every bug off' : ''} to check a fix: ${withBugsOff}`;
  }
  const past = documented[0];
  if (past !== undefined) return `next: no new failure; read the documented findings named above, or replay the first run gone past: ${reproduceHint(past.seed)}`;
  return `next: watch gatesim find a seed bug: ${cliInvocation()} fuzz --scenario send-mid-turn --bugs send-flag --runs 30 --seed 1 (gatesim list names them all)`;
}

function outcomeLines(outcome: ScenarioOutcome, check: DeterminismOutcome | undefined, artifacts: string | undefined): string[] {
  const mismatch = check?.mismatch;
  const nondeterminism = mismatch === undefined ? [] : [`${pc.red('NONDETERMINISM')} ${outcome.scenario}: run ${mismatch.run} gave two traces of one plan`, ...mismatchLines(mismatch), ''];
  const failure = outcome.failure;
  const past = outcome.documented.length;
  const pastText = `${past} run(s) failed only with documented findings about the real code and were gone past (listed at the end)`;
  if (failure === undefined) {
    const verdict = past === 0 ? `${pc.green('PASS')} ${outcome.scenario}: ${outcome.runs} runs` : `${pc.yellow('KNOWN')} ${outcome.scenario}: ${outcome.runs} runs, no new failure; ${pastText}`;
    return [...nondeterminism, ...(mismatch === undefined ? [verdict] : [])];
  }
  return [
    ...nondeterminism,
    runText(failure.seed, failure.result),
    `${pc.red('FAIL')} ${outcome.scenario}: found at run ${failure.run} (${failure.invariant}, ${failure.class}), ${shrinkText(failure)}`,
    ...(past === 0 ? [] : [`  before it, ${pastText}`]),
    `  reproduce: ${reproduceHint(failure.seed)}`,
    ...(artifacts === undefined ? [] : [`  artifacts: ${artifacts}/${artifactFolderName(failure.seed)}/`]),
    '',
  ];
}
