// The command line (DESIGN.md section 7). Exit codes: 0 every invariant held, 1 an invariant was violated, 2 bad
// usage or bad input (one clear line on stderr, no stack trace).
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { type BugId, bugDescriptions, bugIds, parseBugList, UnknownBugError } from '../../src/index.ts';
import { findScenario, type Scenario, scenarioNames, scenarios } from '../../scenarios/index.ts';
import { invariantNames } from '../checkers/index.ts';
import { addCoverage, emptyCoverage } from '../run/coverage.ts';
import { fuzzScenario, type ScenarioOutcome } from './fuzz.ts';
import { generateSpec } from '../run/generate.ts';
import { runSpec } from '../run/harness.ts';
import { runKernelWorkload } from '../kernel/workload.ts';
import { freshSeed, prepareArtifactDir, wallNowMs } from './real.ts';
import { coverageText, formatMs, runJson, runText, writeArtifacts } from './report.ts';
import { decodeSeedString, encodeSeedString, parseSeedNumber, SeedStringError, verifySeedString } from './seed-string.ts';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { LoadError, loadModules, splitLoadOptions } from './load.ts';

class UsageError extends Error {}

function parseSeed(value: string): number {
  try {
    return parseSeedNumber(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function parseBugs(value: string): BugId[] {
  try {
    return parseBugList(value);
  } catch (error) {
    if (error instanceof UnknownBugError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function parsePositive(what: string): (value: string) => number {
  return (value) => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${what} must be a positive integer, got "${value}"`);
    return Number(value);
  };
}

function parseInvariant(value: string): string {
  const known: readonly string[] = [...invariantNames, 'no-process-crash'];
  if (!known.includes(value)) throw new InvalidArgumentError(`unknown invariant "${value}" (known: ${known.join(', ')})`);
  return value;
}

function parseShard(value: string): { index: number; count: number } {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) throw new InvalidArgumentError(`shard must be <i>/<n> with 1 <= i <= n, got "${value}"`);
  return { index: index - 1, count };
}

function scenarioByName(name: string): Scenario {
  const scenario = findScenario(name);
  if (scenario === undefined) throw new UsageError(`unknown scenario "${name}" (known: ${scenarioNames.join(', ')})`);
  return scenario;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

function list(options: { json?: boolean }): number {
  if (options.json === true) {
    print(
      JSON.stringify({
        scenarios: scenarios.map((scenario) => ({ name: scenario.name, description: scenario.description, focus: scenario.focus })),
        bugs: bugIds.map((id) => ({ id, description: bugDescriptions[id] })),
        invariants: invariantNames,
      }),
    );
    return 0;
  }
  print(pc.bold('scenarios'));
  for (const scenario of scenarios) print(`  ${scenario.name.padEnd(14)} ${scenario.description}`);
  print(pc.bold('bugs (all off by default; switch on with --bugs)'));
  for (const id of bugIds) print(`  ${id.padEnd(14)} ${bugDescriptions[id]}`);
  print(pc.bold('invariants'));
  for (const name of invariantNames) print(`  ${name}`);
  return 0;
}

interface RunOptions {
  seed?: number;
  bugs?: BugId[];
  json?: boolean;
  artifacts?: string;
}

function checkArtifactDir(dir: string | undefined): void {
  if (dir === undefined) return;
  const problem = prepareArtifactDir(dir);
  if (problem !== undefined) throw new UsageError(problem);
}

async function runCommand(scenarioName: string, options: RunOptions): Promise<number> {
  const scenario = scenarioByName(scenarioName);
  checkArtifactDir(options.artifacts);
  const seed = options.seed ?? freshSeed();
  const bugs = options.bugs ?? [];
  const spec = generateSpec(scenario, bugs, seed, undefined);
  const seedString = encodeSeedString({ scenario: scenario.name, bugs, seed, path: undefined }, spec);
  return report(seedString, await runSpec(spec, { sql: await loadSqlJs() }), options);
}

async function reproCommand(text: string, options: Omit<RunOptions, 'seed' | 'bugs'>): Promise<number> {
  const decoded = decodeSeedString(text);
  checkArtifactDir(options.artifacts);
  const scenario = scenarioByName(decoded.scenario);
  let spec;
  try {
    spec = generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path);
  } catch (error) {
    if (error instanceof SeedStringError) throw error;
    throw new SeedStringError(`seed string does not replay: its shrink path ${decoded.path ?? 'r'} does not exist for this scenario`);
  }
  verifySeedString(decoded, spec);
  return report(text.trim(), await runSpec(spec, { sql: await loadSqlJs() }), options);
}

async function report(seedString: string, result: Awaited<ReturnType<typeof runSpec>>, options: { json?: boolean; artifacts?: string }): Promise<number> {
  if (options.json === true) print(JSON.stringify(runJson(seedString, result)));
  else print(runText(seedString, result));
  if (options.artifacts !== undefined) {
    const written = writeArtifacts(options.artifacts, seedString, result);
    if (options.json !== true) print(`artifacts: ${written.length} files under ${options.artifacts}`);
  }
  result.sim.dispose();
  return result.verdict === 'pass' ? 0 : 1;
}

interface FuzzOptions {
  invariant?: string;
  scenario?: string;
  all?: boolean;
  bugs?: BugId[];
  runs?: number;
  seconds?: number;
  shard?: { index: number; count: number };
  seed?: number;
  json?: boolean;
}

async function fuzzCommand(options: FuzzOptions): Promise<number> {
  if ((options.scenario === undefined) === (options.all !== true)) throw new UsageError('fuzz needs exactly one of --scenario <name> or --all');
  if (options.runs !== undefined && options.seconds !== undefined) throw new UsageError('give --runs or --seconds, not both');
  const chosen = options.all === true ? scenarios : [scenarioByName(options.scenario as string)];
  const bugs = options.bugs ?? [];
  const campaignSeed = options.seed ?? freshSeed();
  const runs = options.seconds === undefined ? (options.runs ?? 200) : undefined;
  const started = wallNowMs();
  const deadline = options.seconds === undefined ? undefined : () => wallNowMs() - started > (options.seconds as number) * 1_000;
  const sql = await loadSqlJs();
  const showProgress = options.json !== true && process.stderr.isTTY === true;
  const outcomes: ScenarioOutcome[] = [];
  if (options.json !== true) print(`fuzz campaign seed ${campaignSeed}, bugs: ${bugs.join(', ') || 'none'}, ${runs === undefined ? `${options.seconds}s` : `${runs} runs`} per scenario`);
  for (const scenario of chosen) {
    const bar = showProgress ? new SingleBar({ format: `  ${scenario.name.padEnd(14)} [{bar}] {value}/{total} runs`, hideCursor: true }) : undefined;
    bar?.start(runs ?? 0, 0);
    const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, campaignSeed, { ...(runs === undefined ? {} : { runs }), ...(deadline === undefined ? {} : { deadline }), ...(options.invariant === undefined ? {} : { invariant: options.invariant }), shard: options.shard ?? { index: 0, count: 1 } }, sql, (done) => bar?.update(done));
    bar?.stop();
    outcomes.push(outcome);
    if (options.json !== true) printOutcome(outcome);
  }
  const coverage = emptyCoverage();
  for (const outcome of outcomes) addCoverage(coverage, outcome.coverage);
  const failures = outcomes.flatMap((outcome) => (outcome.failure === undefined ? [] : [outcome.failure]));
  const firstFailureRun = failures.length === 0 ? null : Math.min(...failures.map((failure) => failure.run));
  const wallMs = Math.round(wallNowMs() - started);
  const totalRuns = outcomes.reduce((sum, outcome) => sum + outcome.runs, 0);
  if (options.json === true) {
    print(JSON.stringify({ runs: totalRuns, failures: failures.map(({ scenario, seed, invariant, steps }) => ({ scenario, seed, invariant, steps })), firstFailureRun, wallMs, campaignSeed, coverage }));
  } else {
    print(`\n${totalRuns} runs in ${formatMs(wallMs)} wall, ${failures.length} failing scenario(s)`);
    print(pc.bold('fault coverage (faults landed, by the turn phase they landed in)'));
    print(coverageText(coverage));
  }
  for (const failure of failures) failure.result.sim.dispose();
  return failures.length === 0 ? 0 : 1;
}

function printOutcome(outcome: ScenarioOutcome): void {
  const failure = outcome.failure;
  if (failure === undefined) {
    print(`${pc.green('PASS')} ${outcome.scenario}: ${outcome.runs} runs`);
    return;
  }
  print(runText(failure.seed, failure.result));
  print(`${pc.red('FAIL')} ${outcome.scenario}: found at run ${failure.run} (${failure.invariant}), shrunk in ${failure.shrinkRuns} runs`);
  print(`  reproduce: npm run sim -- repro ${failure.seed}\n`);
}

async function demo(options: { seed?: number; json?: boolean }): Promise<number> {
  const seed = options.seed ?? freshSeed();
  const result = await runKernelWorkload({ seed: String(seed), sql: await loadSqlJs() });
  result.sim.dispose();
  const summary = { seed, stopReason: result.stopReason, steps: result.steps, simTimeMs: result.simTimeMs, crashes: result.crashes, traceHash: result.traceHash };
  if (options.json === true) print(JSON.stringify(summary));
  else print(`kernel demo  seed ${seed}  traceHash ${result.traceHash}  ${result.steps} steps over ${formatMs(result.simTimeMs)}, crashes: ${result.crashes}`);
  return result.crashes === 0 ? 0 : 1;
}

function program(setExit: (code: number) => void): Command {
  const root = new Command('gatesim')
    .description('Deterministic simulation test bench for AI-agent chat gateways')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .option('--load <module>', 'import a module that registers scenarios or invariants first (repeatable)');
  const bugsOption = () => new Option('--bugs <ids>', `bug ids to switch on, comma-separated (${bugIds.join(', ')})`).argParser(parseBugs);
  root.command('list').description('list scenarios, bug ids and invariants').option('--json', 'print one JSON object').action((options: { json?: boolean }) => setExit(list(options)));
  root
    .command('run')
    .description('run one seeded scenario and check every invariant')
    .argument('<scenario>', `one of: ${scenarioNames.join(', ')}`)
    .option('--seed <n>', 'plan seed (default: a fresh one, printed in the seed string)', parseSeed)
    .addOption(bugsOption())
    .option('--json', 'print one JSON object')
    .option('--artifacts <dir>', 'write the trace, databases and transcripts under <dir>')
    .action(async (scenario: string, options: RunOptions) => setExit(await runCommand(scenario, options)));
  root
    .command('repro')
    .description('replay a run exactly from its seed string')
    .argument('<seed-string>', 'a seed string such as printed by run or fuzz')
    .option('--json', 'print one JSON object')
    .option('--artifacts <dir>', 'write the trace, databases and transcripts under <dir>')
    .action(async (seedString: string, options: RunOptions) => setExit(await reproCommand(seedString, options)));
  root
    .command('fuzz')
    .description('fuzz scenarios with fast-check; shrink the first failure of each scenario')
    .option('--scenario <name>', 'fuzz one scenario')
    .option('--all', 'fuzz every scenario')
    .addOption(bugsOption())
    .option('--runs <n>', 'runs per scenario (default 200)', parsePositive('--runs'))
    .option('--seconds <s>', 'fuzz each scenario for about this many wall seconds instead', parsePositive('--seconds'))
    .option('--shard <i>/<n>', 'run shard i of n of the campaign', parseShard)
    .option('--seed <n>', 'campaign seed (default: a fresh one, printed)', parseSeed)
    .option('--invariant <name>', 'count a run as failing only if it violates this invariant', parseInvariant)
    .option('--json', 'print one JSON object')
    .action(async (options: FuzzOptions) => setExit(await fuzzCommand(options)));
  root
    .command('demo')
    .description('run the kernel demonstration workload and print its traceHash')
    .option('--seed <n>', 'seed (default: a fresh one, printed)', parseSeed)
    .option('--json', 'print one JSON object')
    .action(async (options: { seed?: number; json?: boolean }) => setExit(await demo(options)));
  return root;
}

export async function main(argvWithLoads: readonly string[]): Promise<number> {
  let code = 0;
  let argv: string[];
  try {
    const { modules, rest } = splitLoadOptions(argvWithLoads);
    await loadModules(modules, process.cwd());
    argv = rest;
  } catch (error) {
    if (!(error instanceof LoadError)) throw error;
    process.stderr.write(`gatesim: ${error.message}\n`);
    return 2;
  }
  if (argv.length === 0) {
    process.stderr.write('gatesim: a command is required (list, run, repro, fuzz, demo); see --help\n');
    return 2;
  }
  try {
    await program((value) => {
      code = value;
    }).parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return 0;
      const firstLine = error.message.split('\n')[0] ?? error.message;
      process.stderr.write(`gatesim: ${firstLine.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof SeedStringError) {
      process.stderr.write(`gatesim: ${error.message}\n`);
      return 2;
    }
    // A bug in gatesim itself: one line, the stack only on request, and an exit status of its own.
    process.stderr.write(`gatesim: internal error: ${error instanceof Error ? error.message : String(error)}${process.env.GATESIM_DEBUG === undefined ? ' (set GATESIM_DEBUG=1 for the stack)' : `\n${error instanceof Error ? (error.stack ?? '') : ''}`}\n`);
    return 3;
  }
}

process.exitCode = await main(process.argv.slice(2));
