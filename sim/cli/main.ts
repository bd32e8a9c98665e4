// The command line (docs/ARCHITECTURE.md section 7). Exit codes: 0 every invariant held, 1 a correctness invariant was
// violated, 2 bad usage or bad input (one short line on stderr, no stack trace), 3 an internal error of gatesim,
// 4 only liveness invariants were violated, 5 only a model process crashed, 6 a run of one plan gave two traces
// (fuzz --check-determinism).
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { type BugId, bugDescriptions, bugIds, parseBugList, UnknownBugError } from '../../src/index.ts';
import { findScenario, type Scenario, scenarioNames, scenarios } from '../../scenarios/index.ts';
import { invariantNames } from '../checkers/index.ts';
import { builtinInvariantNames, classOf } from '../checkers/violation.ts';
import { customDescription, userInvariantErrorPrefix } from '../checkers/custom.ts';
import { invariantMeanings } from '../checkers/meanings.ts';
import { generateSpec } from '../run/generate.ts';
import { runSpec } from '../run/harness.ts';
import { runKernelWorkload } from '../kernel/workload.ts';
import { loadSqlJs } from '../kernel/sqlite.ts';
import { pc } from './colors.ts';
import { exitCodeFor, exitCodes } from './exit-codes.ts';
import { fuzzCommand, type FuzzOptions, UsageError, workersMax } from './fuzz-command.ts';
import { shrinkRunsMax } from './fuzz-task.ts';
import { checkFractionDefault, parseCheckFraction } from './determinism-check.ts';
import { checkPathText, claimArtifactDir, freshSeed, isDirectory, isReexec, nodeVersionOf, prepareArtifactDir, recordArtifacts, reexecUnder, removeIfEmpty, runningNodeVersion, workspaceNodeBinary } from './real.ts';
import { formatMs, runJson, runText, writeArtifacts } from './report.ts';
import { cliInvocation, clip, decodeSeedString, encodeSeedString, loadOptions, parseSeedNumber, type RunTags, runOptionsOf, SeedStringError, tagsOf, verifySeedString } from './seed-string.ts';
import { type OpenclawChoice, OpenclawChoiceError, openclawBarePartsOf, openclawGatewayParts, type OpenclawGatewayPart, openclawMissingPartsOf, openclawPartCodes, openclawPartsOf, parseOpenclawChoice } from '../real/openclaw/choice.ts';
import { openclawSurroundingsOf, openclawSurroundingsRevision } from '../real/openclaw/surroundings.ts';
import { openclawInstallCommand, openclawInstalled, openclawPinnedReleases, OpenclawWorkspaceMissingError } from '../real/openclaw/releases.ts';
import { nodeNeedOf, nodeSatisfies, nodeVariable, openclawEngines, releasesNeedingSupportedNode, workspaceNodeVersion } from '../real/openclaw/node-version.ts';
import { LoadError, loadModules, splitLoadOptions } from './load.ts';
import { noteLoadedModules } from './real-code.ts';
import { releaseLoadingLine } from './progress.ts';
import { bisectJson, bisectText, choicesToRun, mostDemandingChoice, planBisect, runBisect } from './bisect.ts';
import { resolve } from 'node:path';

const errorLineLengthMax = 300;

function parseSeed(value: string): number {
  try {
    return parseSeedNumber(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function parseBugs(value: string): BugId[] {
  if (value.trim() === 'none') return [];
  // An empty list (`--bugs "$BUGS"` with the variable unset) must not quietly run a bug hunt with every bug off.
  if (value.split(',').every((part) => part.trim() === '')) throw new InvalidArgumentError(`needs bug ids, got an empty list (say --bugs none to run with every bug off; known: ${bugIds.join(', ')})`);
  try {
    return parseBugList(value);
  } catch (error) {
    if (error instanceof UnknownBugError) throw new InvalidArgumentError(clip(error.message, 200));
    throw error;
  }
}

function parsePositive(what: string): (value: string) => number {
  return (value) => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${what} must be a positive integer, got "${clip(value)}"`);
    return Number(value);
  };
}

function parseCount(what: string): (value: string) => number {
  return (value) => {
    if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError(`${what} must be a whole number (0 or more), got "${clip(value)}"`);
    return Number(value);
  };
}

function parseInvariant(value: string): string {
  const known: readonly string[] = [...invariantNames, 'no-process-crash'];
  if (!known.includes(value)) throw new InvalidArgumentError(`unknown invariant "${clip(value)}" (known: ${known.join(', ')})`);
  return value;
}

function parseOpenclaw(value: string): OpenclawChoice {
  try {
    return parseOpenclawChoice(value);
  } catch (error) {
    if (error instanceof OpenclawChoiceError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function parseShard(value: string): { index: number; count: number } {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) throw new InvalidArgumentError(`shard must be <i>/<n> with 1 <= i <= n, got "${clip(value)}"`);
  return { index: index - 1, count };
}

function scenarioByName(name: string): Scenario {
  const scenario = findScenario(name);
  if (scenario === undefined) throw new UsageError(`unknown scenario "${clip(name)}" (known: ${scenarioNames.join(', ')})`);
  return scenario;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Every invariant a run checks, built-in (no-process-crash included) then registered, with its class and meaning. */
function invariantList(): { name: string; class: string; meaning: string }[] {
  const meanings: Readonly<Record<string, string>> = invariantMeanings;
  const builtin: readonly string[] = builtinInvariantNames;
  const names = [...builtin, 'no-process-crash', ...invariantNames.filter((name) => !builtin.includes(name))];
  return names.map((name) => ({ name, class: classOf(name), meaning: meanings[name] ?? customDescription(name) ?? `(registered, ${classOf(name)}; no description given)` }));
}

function list(options: { json?: boolean }): number {
  if (options.json === true) {
    print(
      JSON.stringify({
        scenarios: scenarios.map((scenario) => ({ name: scenario.name, description: scenario.description, focus: scenario.focus })),
        bugs: bugIds.map((id) => ({ id, description: bugDescriptions[id] })),
        invariants: invariantNames,
        invariantDetails: invariantList(),
        openclaw: openclawPinnedReleases.map((release) => ({
          release,
          parts: openclawPartsOf(release),
          bareParts: openclawBarePartsOf(release),
          lacks: openclawMissingPartsOf(release),
          node: releasesNeedingSupportedNode.includes(release) ? openclawEngines[release] : null,
          installed: openclawInstalled(release),
          around: aroundJson(release),
        })),
      }),
    );
    return 0;
  }
  // One width per table, from its longest name, so a long id (a registered scenario's, say) never breaks a column.
  const column = (names: readonly string[]): number => Math.max(14, ...names.map((name) => name.length + 1));
  const scenarioWidth = column(scenarios.map((scenario) => scenario.name));
  print(pc.bold('scenarios'));
  for (const scenario of scenarios) print(`  ${scenario.name.padEnd(scenarioWidth)} ${scenario.description}`);
  print(pc.bold('bugs (all off by default; switch on with --bugs)'));
  const bugWidth = column(bugIds);
  for (const id of bugIds) print(`  ${id.padEnd(bugWidth)} ${bugDescriptions[id]}`);
  print(pc.bold('invariants'));
  const invariants = invariantList();
  const width = Math.max(...invariants.map((invariant) => invariant.name.length)) + 2;
  for (const invariant of invariants) print(`  ${invariant.name.padEnd(width)}${invariant.meaning}`);
  print(pc.bold('real OpenClaw releases (--openclaw <release>[:<part>,...])'));
  const releaseWidth = column(openclawPinnedReleases);
  const lackedAs = { gone: 'gone', 'no-op': 'a no-op', 'needs-sqlite': 'needs the SQLite agent DB, part 2' } as const;
  for (const release of openclawPinnedReleases) {
    const bare = openclawBarePartsOf(release);
    const optIn = openclawPartsOf(release).filter((part) => !bare.includes(part));
    const node = releasesNeedingSupportedNode.includes(release) ? `; under Node ${openclawEngines[release]}` : '';
    print(`  ${release.padEnd(releaseWidth)} parts: ${bare.join(', ')}${optIn.length > 0 ? `; only when named: ${optIn.join(', ')}` : ''}${node}${openclawInstalled(release) ? '' : ` (not installed: ${openclawInstallCommand})`}`);
    const lacks = openclawMissingPartsOf(release);
    if (lacks.length > 0) print(`  ${''.padEnd(releaseWidth)} lacks: ${lacks.map((missing) => `${missing.part} (${lackedAs[missing.kind]})`).join(', ')}`);
    // Around the parts (surroundings.ts): the release's behaviour the model takes, and its own defences that stay.
    const { settings, defences } = openclawSurroundingsOf(release);
    const unless = (parts: readonly string[] | undefined): string => (parts === undefined || parts.length === 0 ? '' : ` [unless ${parts.map((part) => openclawPartCodes[part as OpenclawGatewayPart]).join(', ')} runs]`);
    print(`  ${''.padEnd(releaseWidth)} around the parts as the release: ${settings.length === 0 ? 'nothing known' : settings.map((setting) => `${setting.name} (${setting.variant})${unless(setting.unlessParts)}`).join('; ')}`);
    print(`  ${''.padEnd(releaseWidth)} model defences in force: ${defences.map((defence) => `${defence.name}${unless(defence.unlessParts)}`).join('; ')}`);
  }
  return 0;
}

/** A release's table of the parts around, as `list --json` gives it. */
function aroundJson(release: (typeof openclawPinnedReleases)[number]): object {
  const { settings, defences } = openclawSurroundingsOf(release);
  return {
    revision: openclawSurroundingsRevision,
    settings: settings.map(({ id, name, release: does, variant, source, unlessParts = [] }) => ({ id, name, release: does, variant, source, unlessParts })),
    defences: defences.map(({ id, name, defence, why, unlessParts = [] }) => ({ id, name, defence, why, unlessParts })),
  };
}

interface RunOptions {
  seed?: number;
  bugs?: BugId[];
  sessionManager?: 'model' | 'pi';
  openclaw?: OpenclawChoice;
  json?: boolean;
  artifacts?: string;
}

function checkArtifactDir(dir: string | undefined): void {
  if (dir === undefined) return;
  const existed = isDirectory(dir);
  const problem = checkPathText(dir, '--artifacts') ?? prepareArtifactDir(dir) ?? claimArtifactDir(dir);
  if (problem === undefined) return;
  if (!existed) removeIfEmpty(dir);
  throw new UsageError(problem);
}

/** The modules given with --load, in order: every seed string this process makes records them. */
let loadedModules: readonly string[] = [];

/**
 * A part of the release that runs only under a Node its engines accept (sim/real/openclaw/node-version.ts): when the
 * running Node is not one, the same command runs again under GATESIM_NODE24's binary or the workspace's Node, and its
 * exit status is the answer; with neither, one line and exit 2. Undefined: go on in this process.
 */
function underSupportedNode(choice: OpenclawChoice | undefined): number | undefined {
  // A release that is not installed is the first thing to fix: say how to install it before any Node version.
  if (choice !== undefined && !openclawInstalled(choice.release)) throw new UsageError(new OpenclawWorkspaceMissingError(choice.release).message);
  const need = nodeNeedOf(choice);
  if (need === undefined || nodeSatisfies(runningNodeVersion(), need.range)) return undefined;
  const install = `run \`${openclawInstallCommand}\` (it installs Node ${workspaceNodeVersion}) or set ${nodeVariable} to a Node binary of that range`;
  if (isReexec()) throw new UsageError(`${need.what} needs Node ${need.range}, and the Node it was re-run under is ${runningNodeVersion()}: ${install}`);
  const own = process.env[nodeVariable];
  const binary = own !== undefined && own !== '' ? own : workspaceNodeBinary();
  if (binary === undefined) throw new UsageError(`${need.what} needs Node ${need.range} (this is ${runningNodeVersion()}) and no such Node is installed: ${install}`);
  const version = nodeVersionOf(binary);
  if (version === undefined || !nodeSatisfies(version, need.range)) {
    throw new UsageError(`${need.what} needs Node ${need.range}; ${binary === own ? nodeVariable : 'the workspace'} names ${clip(binary, 120)}, which ${version === undefined ? 'does not run' : `is ${version}`}: ${install}`);
  }
  return reexecUnder(binary);
}

async function runCommand(scenarioName: string, options: RunOptions): Promise<number> {
  const reran = underSupportedNode(options.openclaw);
  if (reran !== undefined) return reran;
  const scenario = scenarioByName(scenarioName);
  checkArtifactDir(options.artifacts);
  const seed = options.seed ?? freshSeed();
  const bugs = options.bugs ?? [];
  const spec = generateSpec(scenario, bugs, seed, undefined);
  const tags = tagsOf({ ...(options.sessionManager === undefined ? {} : { sessionManager: options.sessionManager }), ...(options.openclaw === undefined ? {} : { openclaw: options.openclaw }), loads: loadedModules });
  const seedString = encodeSeedString({ scenario: scenario.name, ...tags, bugs, seed, path: undefined }, spec);
  return report(seedString, await runWith(spec, tags), options);
}

/**
 * A seed string names what its run needed besides the plan; refuse (exit 2) a replay that lacks any of it: a
 * component of the caller's own (only the library can hand it over again), or a module the run was made with --load.
 */
function checkReplayable(decoded: ReturnType<typeof decodeSeedString>): void {
  if (decoded.custom !== undefined) {
    const processes = decoded.custom.join(', ');
    throw new UsageError(
      `seed string was made with a component of your own in place of the ${processes} (passed as \`components\` to runScenario or fuzz); the command line cannot replay it: call reproduce(seed, { components: { ${decoded.custom.map((process) => `'${process}': <your component>`).join(', ')} } }) from your code`,
    );
  }
  // Compared by name (load.ts, loadName): a file by its path from its project root, whatever folder and spelling.
  const named = decoded.loads ?? [];
  const given = new Set(tagsOf({ loads: loadedModules }).loads);
  const missing = named.filter((name) => !given.has(name));
  if (missing.length > 0) {
    throw new UsageError(`seed string was made with ${loadOptions(missing)}; replay it with: ${cliInvocation()} ${loadOptions(named)} repro <seed-string>`);
  }
}

/** Run a spec with the model's or the real pi SessionManager; a missing real/ package is bad usage (exit 2). */
async function runWith(spec: Parameters<typeof runSpec>[0], tags: RunTags): Promise<Awaited<ReturnType<typeof runSpec>>> {
  // A release loads inside the run, for many seconds: say so on stderr first, so the command does not look hung.
  if (tags.openclaw !== undefined) process.stderr.write(`gatesim: ${releaseLoadingLine(tags.openclaw)}\n`);
  try {
    return await runSpec(spec, { sql: await loadSqlJs(), ...runOptionsOf(tags) });
  } catch (error) {
    throw usageIfMissingWorkspace(error);
  }
}

/** A real module's workspace that is not installed is bad usage (exit 2, the line says how to install it). */
export function usageIfMissingWorkspace(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (error.name === 'OpenclawWorkspaceMissingError' || /npm ci --prefix real/.test(error.message)) return new UsageError(error.message);
  return error;
}

/** Replay a seed string; with --bugs, the same plan with the model switched differently (a fix checked on the failing plan). */
async function reproCommand(text: string, options: Omit<RunOptions, 'seed'>): Promise<number> {
  const decoded = decodeSeedString(text);
  const reran = underSupportedNode(decoded.openclaw);
  if (reran !== undefined) return reran;
  checkReplayable(decoded);
  const scenario = scenarioByName(decoded.scenario);
  let spec;
  try {
    spec = generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path);
  } catch (error) {
    if (error instanceof SeedStringError) throw error;
    throw new SeedStringError(`seed string does not replay: its shrink path does not exist for this scenario`);
  }
  verifySeedString(decoded, spec);
  checkArtifactDir(options.artifacts);
  if (options.bugs === undefined) return report(text.trim(), await runWith(spec, decoded), options);
  // The plan of the seed string under another bug set has a seed string of its own, which replays it in turn.
  const switched = { ...spec, bugs: options.bugs };
  const seedString = encodeSeedString({ scenario: scenario.name, ...tagsOf(decoded), bugs: options.bugs, seed: decoded.seed, path: decoded.path }, switched);
  if (options.json !== true) print(`replaying the plan of ${text.trim()} with bugs: ${options.bugs.join(', ') || 'none'}`);
  return report(seedString, await runWith(switched, decoded), options);
}

/**
 * Replay the plan of a seed string made with --openclaw with the same parts of each pinned release in the range
 * (bisect.ts), and print the verdicts and where they changed; exit 0 whenever the table is produced.
 */
async function bisectCommand(text: string, options: { openclaw?: string; json?: boolean }): Promise<number> {
  const decoded = decodeSeedString(text);
  const plan = planBisect(decoded, options.openclaw);
  const reran = underSupportedNode(mostDemandingChoice(choicesToRun(plan)));
  if (reran !== undefined) return reran;
  checkReplayable(decoded);
  const rows = await runBisect(plan, (choice) => runWith(plan.spec, { ...tagsOf(decoded), openclaw: choice }));
  print(options.json === true ? JSON.stringify(bisectJson({ plan, rows })) : bisectText({ plan, rows }));
  return 0;
}

async function report(seedString: string, result: Awaited<ReturnType<typeof runSpec>>, options: { json?: boolean; artifacts?: string }): Promise<number> {
  // The artifacts first, so that the JSON can say where they went (and a write that fails leaves no report claiming them).
  const dir = options.artifacts;
  const written = dir === undefined ? [] : writeArtifacts(dir, seedString, result);
  if (dir !== undefined) recordArtifacts(dir, written.map((path) => path.slice(dir.length + 1).split('/')[0] ?? ''));
  const artifacts = dir === undefined ? undefined : { dir: resolve(dir), files: written.map((path) => path.slice(dir.length + 1)) };
  if (options.json === true) print(JSON.stringify({ ...runJson(seedString, result), ...(artifacts === undefined ? {} : { artifacts }) }));
  else {
    print(runText(seedString, result));
    if (artifacts !== undefined) print(`artifacts: ${written.length} files under ${artifacts.dir} (open trace.html in a browser)`);
  }
  result.sim.dispose();
  return exitCodeFor(result.violations.map((violation) => violation.class));
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
    .version(packageJson.version, '--version', 'print the gatesim version')
    .option('--no-color', 'no colour codes in the output (also NO_COLOR; colour is off when stdout is not a terminal)')
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .option('--load <module>', 'import a module that registers scenarios or invariants first (repeatable)');
  const sessionManagerOption = () =>
    new Option('--session-manager <model|pi>', "the runner's SessionManager: the model's own, or the real pi one (needs npm ci --prefix real); recorded in the seed string").choices(['model', 'pi']);
  // Whether some release leaves parts out of a bare choice (list shows them as only when named).
  const someOptIn = openclawPinnedReleases.some((release) => openclawBarePartsOf(release).length < openclawPartsOf(release).length);
  const openclawOption = () =>
    new Option('--openclaw <release[:parts]>', `run a pinned OpenClaw release's gateway parts in place of the model's (${openclawPinnedReleases.join(', ')}; parts ${openclawGatewayParts.join(', ')}; by default every part the release runs${someOptIn ? ' but those list shows as only when named' : ''}; needs ${openclawInstallCommand}); recorded in the seed string`).argParser(parseOpenclaw);
  const bugsOption = () => new Option('--bugs <ids>', `bug ids to switch on, comma-separated (${bugIds.join(', ')})`).argParser(parseBugs);
  root.command('list').description('list scenarios, bug ids and invariants').option('--json', 'print one JSON object').action((options: { json?: boolean }) => setExit(list(options)));
  root
    .command('run')
    .description('run one seeded scenario and check every invariant')
    .argument('<scenario>', `one of: ${scenarioNames.join(', ')}`)
    .option('--seed <n>', 'plan seed (default: a fresh one, printed in the seed string)', parseSeed)
    .addOption(bugsOption())
    .addOption(sessionManagerOption())
    .addOption(openclawOption())
    .option('--json', 'print one JSON object')
    .option('--artifacts <dir>', 'write the trace, databases and transcripts under <dir>')
    .action(async (scenario: string, options: RunOptions) => setExit(await runCommand(scenario, options)));
  root
    .command('repro')
    .description('replay a run exactly from its seed string')
    .argument('<seed-string>', 'a seed string such as printed by run or fuzz')
    .addOption(new Option('--bugs <ids|none>', 'replay the same plan with this bug set instead (none, or ids comma-separated)').argParser(parseBugs))
    .option('--json', 'print one JSON object')
    .option('--artifacts <dir>', 'write the trace, databases and transcripts under <dir>')
    .action(async (seedString: string, options: RunOptions) => setExit(await reproCommand(seedString, options)));
  root
    .command('bisect')
    .description("replay a seed string's plan with the same real OpenClaw parts of each pinned release; say where the verdict changed")
    .argument('<seed-string>', 'a seed string made with --openclaw (tag @oc-<release>~<parts>)')
    .option('--openclaw <from>..<to>', `the releases to replay, in release order, both ends included, either optional (default: every one of ${openclawPinnedReleases.join(', ')})`)
    .option('--json', 'print one JSON object')
    .action(async (seedString: string, options: { openclaw?: string; json?: boolean }) => setExit(await bisectCommand(seedString, options)));
  root
    .command('fuzz')
    .description('fuzz scenarios with fast-check; shrink the first failure of each scenario')
    .option('--scenario <name>', 'fuzz one scenario')
    .option('--all', 'fuzz every scenario')
    .addOption(bugsOption())
    .option('--runs <n>', 'runs per scenario (default 200)', parsePositive('--runs'))
    .option('--seconds <s>', 'fuzz each scenario for about this many wall seconds instead', parsePositive('--seconds'))
    .option('--shard <i>/<n>', 'run shard i of n of the campaign (needs --seed)', parseShard)
    .option('--seed <n>', 'campaign seed (default: a fresh one, printed)', parseSeed)
    .option('--workers <n>', `worker threads (1 to ${workersMax}; default 1); the same failures and seed strings as one`, parsePositive('--workers'))
    .option('--invariant <name>', 'count a run as failing only if it violates this invariant', parseInvariant)
    .addOption(sessionManagerOption())
    .addOption(openclawOption())
    .option('--junit <file>', 'write a JUnit XML report: one test case per scenario and bug set')
    .option('--artifacts <dir>', 'write the artifacts of each failure under <dir>/<seed string>/')
    .option('--json', 'print one JSON object (the fault coverage included)')
    .option('--coverage', 'print the whole fault-coverage table (fault types and shapes by turn phase) instead of its one-line summary')
    .option('--shrink-runs <n>', `the shrink's budget of runs for each failure (default ${shrinkRunsMax}; 0 reports the failing run as drawn, unshrunk: a run with real code can take a minute)`, parseCount('--shrink-runs'))
    .option('--past-documented', 'with real code (--openclaw, --session-manager pi): a run that fails only with findings docs/MODEL.md documents about that code is listed, unshrunk, and the campaign goes on; the first run with a new failure stops it and is shrunk')
    .option('--check-determinism [fraction]', `replay a fixed sample of the runs (this fraction of them, 0 < f <= 1; default ${checkFractionDefault}) where the campaign runs and on a fresh worker thread, and compare their traces; a run that gives two traces exits ${exitCodes.nondeterminism}`, parseCheckFraction)
    .action(async (options: FuzzOptions) => setExit(underSupportedNode(options.openclaw) ?? (await fuzzCommand({ ...options, loads: loadedModules }))));
  root
    .command('demo')
    .description('run the kernel demonstration workload and print its traceHash')
    .option('--seed <n>', 'seed (default: a fresh one, printed)', parseSeed)
    .option('--json', 'print one JSON object')
    .action(async (options: { seed?: number; json?: boolean }) => setExit(await demo(options)));
  return root;
}

/** Bad usage or bad input: one short line (user text in it is cut), exit 2. */
function usageLine(message: string): number {
  const line = message.split('\n')[0] ?? message;
  process.stderr.write(`gatesim: ${clip(line, errorLineLengthMax)}\n`);
  return exitCodes.usage;
}

export async function main(argvWithLoads: readonly string[]): Promise<number> {
  let code = 0;
  let argv: string[];
  try {
    const { modules, rest } = splitLoadOptions(argvWithLoads);
    await loadModules(modules, process.cwd());
    loadedModules = modules;
    noteLoadedModules(tagsOf({ loads: modules }).loads ?? []);
    argv = rest;
  } catch (error) {
    if (!(error instanceof LoadError)) throw error;
    return usageLine(error.message);
  }
  if (argv.length === 0) {
    process.stderr.write('gatesim: a command is required (list, run, repro, bisect, fuzz, demo); see --help\n');
    return exitCodes.usage;
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
      return usageLine(firstLine.replace(/^error: /, ''));
    }
    if (error instanceof UsageError || error instanceof SeedStringError) return usageLine(error.message);
    // The caller's own invariant threw: their code, not gatesim's; its stack is shown, and the status is bad input.
    if (error instanceof Error && error.message.startsWith(userInvariantErrorPrefix)) {
      process.stderr.write(`gatesim: ${clip(error.message, errorLineLengthMax)}\n${(error.stack ?? '').split('\n').slice(1).join('\n')}\n`);
      return exitCodes.usage;
    }
    // Real code reached what the simulated world does not cover yet: gatesim's limit (exit 3), said as such.
    if (error instanceof Error && error.name === 'RealCodeEscapeError') {
      process.stderr.write(`gatesim: not simulated (a limit of gatesim, not a finding about the release): ${clip(error.message, errorLineLengthMax)}\n`);
      return exitCodes.internal;
    }
    // A bug in gatesim itself: one line, the stack only on request, and an exit status of its own.
    const message = clip(error instanceof Error ? error.message : String(error), errorLineLengthMax);
    process.stderr.write(`gatesim: internal error: ${message}${process.env.GATESIM_DEBUG === undefined ? ' (set GATESIM_DEBUG=1 for the stack)' : `\n${error instanceof Error ? (error.stack ?? '') : ''}`}\n`);
    return exitCodes.internal;
  }
}

// A reader that stops early (`| head`) closes the pipe: stop writing quietly instead of dying with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
process.exitCode = await main(process.argv.slice(2));
