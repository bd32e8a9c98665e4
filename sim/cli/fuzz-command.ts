// `gatesim fuzz`: check the options (all bad input is refused before anything is started or written), run the
// campaign scenario by scenario on one or more workers, and report: text or JSON on stdout, progress on stderr,
// optionally a folder of artifacts per failure (named by its seed string) and a JUnit file, written whole at the end.
import type { BugId } from '../../src/index.ts';
import { findScenario, type Scenario, scenarioNames, scenarios } from '../../scenarios/index.ts';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { addCoverage, emptyCoverage } from '../run/coverage.ts';
import { type Shard, shardRunCount, wholeCampaign } from './campaign.ts';
import { pc } from './colors.ts';
import { exitCodeFor } from './exit-codes.ts';
import { type FuzzFailure, fuzzScenario, type ScenarioOutcome } from './fuzz.ts';
import { shrinkRunsMax } from './fuzz-task.ts';
import { junitXml } from './junit.ts';
import { type Executor, inlineExecutor, poolExecutor } from './pool.ts';
import { startProgress } from './progress.ts';
import { checkWritableFile, freshSeed, isDirectory, prepareArtifactDir, removeIfEmpty, wallNowMs, writeArtifact, writeFolderWhole } from './real.ts';
import { coverageText, formatMs, runText, writeArtifacts } from './report.ts';

export const workersMax = 64;

export class UsageError extends Error {}

export interface FuzzOptions {
  invariant?: string;
  sessionManager?: 'model' | 'pi';
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
  if (shard !== undefined && options.seed === undefined) throw new UsageError('--shard needs --seed: the shards of one campaign must share its seed');
  if (shard !== undefined && runs !== undefined && shardRunCount(runs, shard) === 0) {
    throw new UsageError(`shard ${shard.index + 1}/${shard.count} has no runs to do: --runs ${runs} gives fewer runs per scenario than ${shard.index + 1}`);
  }
  if (options.workers !== undefined && options.workers > workersMax) throw new UsageError(`--workers must be at most ${workersMax}, got ${options.workers}`);
  if (options.junit !== undefined) {
    const problem = checkWritableFile(options.junit, 'JUnit');
    if (problem !== undefined) throw new UsageError(problem);
  }
  if (options.artifacts === undefined) return false;
  const existed = isDirectory(options.artifacts);
  const problem = prepareArtifactDir(options.artifacts);
  if (problem !== undefined) throw new UsageError(problem);
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
  const executor: Executor = workers === 1 ? inlineExecutor(sql) : poolExecutor(workers);
  const started = wallNowMs();
  const perShard = runs === undefined ? undefined : shardRunCount(runs, shard);
  const progress = startProgress({ scenarios: chosen.length, runsPerScenario: perShard, seconds: options.seconds }, process.stderr.isTTY === true, (line) => process.stderr.write(`${line}\n`));
  const say = (line: string): void => (options.json === true ? undefined : progress.print(line));
  say(`fuzz campaign seed ${campaignSeed}, bugs: ${bugs.join(', ') || 'none'}, ${runs === undefined ? `${options.seconds}s` : `${runs} runs`} per scenario${shard.count > 1 ? `, shard ${shard.index + 1}/${shard.count} (${perShard} runs per scenario)` : ''}, ${workers} worker(s)`);
  const outcomes: ScenarioOutcome[] = [];
  try {
    for (const [position, scenario] of chosen.entries()) {
      const scenarioStarted = wallNowMs();
      const deadline = options.seconds === undefined ? undefined : () => wallNowMs() - scenarioStarted > (options.seconds as number) * 1_000;
      const limits = { ...(runs === undefined ? {} : { runs }), ...(deadline === undefined ? {} : { deadline }), ...(options.invariant === undefined ? {} : { invariant: options.invariant }), ...(options.sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}), shard };
      const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, campaignSeed, limits, sql, (done) => progress.update(scenario.name, position, done), {
        executor,
        onShrinkStarted: (run) => progress.note(`fuzz: ${scenario.name} failed at run ${run}; shrinking it (at most ${shrinkRunsMax} runs)`),
      });
      outcomes.push(outcome);
      const failure = outcome.failure;
      if (failure !== undefined && options.artifacts !== undefined) writeFolderWhole(`${options.artifacts}/${failure.seed}`, (into) => writeArtifacts(into, failure.seed, failure.result));
      if (options.json !== true) for (const line of outcomeLines(outcome, options.artifacts)) progress.print(line);
    }
  } finally {
    progress.stop();
    await executor.close();
  }
  const wallMs = Math.round(wallNowMs() - started);
  return finish(options, { bugs, campaignSeed, shard, outcomes, wallMs }, createdArtifacts);
}

function finish(options: FuzzOptions, campaign: { bugs: BugId[]; campaignSeed: number; shard: Shard; outcomes: ScenarioOutcome[]; wallMs: number }, createdArtifacts: boolean): number {
  const { outcomes, wallMs, campaignSeed } = campaign;
  const coverage = emptyCoverage();
  for (const outcome of outcomes) addCoverage(coverage, outcome.coverage);
  const failures = outcomes.flatMap((outcome) => (outcome.failure === undefined ? [] : [outcome.failure]));
  const firstFailureRun = failures.length === 0 ? null : Math.min(...failures.map((failure) => failure.run));
  const totalRuns = outcomes.reduce((sum, outcome) => sum + outcome.runs, 0);
  if (options.junit !== undefined) writeArtifact(options.junit, junitXml(campaign));
  // A folder this campaign created and found nothing to put in is removed; a folder the user had is kept.
  if (options.artifacts !== undefined && createdArtifacts && failures.length === 0) removeIfEmpty(options.artifacts);
  if (options.json === true) {
    print(JSON.stringify({ runs: totalRuns, failures: failures.map(failureJson), firstFailureRun, wallMs, campaignSeed, coverage }));
  } else {
    print(`\n${totalRuns} runs in ${formatMs(wallMs)} wall, ${failures.length} failing scenario(s)`);
    print(pc.bold('fault coverage (faults landed, by the turn phase they landed in)'));
    print(coverageText(coverage));
  }
  for (const failure of failures) failure.result.sim.dispose();
  return exitCodeFor(failures.flatMap((failure) => failure.violations.map((violation) => violation.class)));
}

function failureJson(failure: FuzzFailure): Record<string, unknown> {
  return { scenario: failure.scenario, seed: failure.seed, invariant: failure.invariant, class: failure.class, steps: failure.steps };
}

function outcomeLines(outcome: ScenarioOutcome, artifacts: string | undefined): string[] {
  const failure = outcome.failure;
  if (failure === undefined) return [`${pc.green('PASS')} ${outcome.scenario}: ${outcome.runs} runs`];
  return [
    runText(failure.seed, failure.result),
    `${pc.red('FAIL')} ${outcome.scenario}: found at run ${failure.run} (${failure.invariant}, ${failure.class}), shrunk in ${failure.shrinkRuns} runs`,
    `  reproduce: npm run sim -- repro ${failure.seed}`,
    ...(artifacts === undefined ? [] : [`  artifacts: ${artifacts}/${failure.seed}/`]),
    '',
  ];
}
