// The benchmark (`npm run bench`, `npm run bench -- --json`, `npm run bench -- --quick`): what the kernel does,
// what a campaign costs per scenario, how it scales over worker threads, how long gatesim takes to find each seed
// bug (focused scenario and chaos) against a plain fast-check property of the same model (the peer), and memory
// over a long campaign. Every figure comes from this one run; the machine's load is recorded beside them, since
// on a shared machine wall times move with it. Targets are issue 13's (`targets`) and issue 25's (`issue25.targets`,
// campaign speed: its figures are gathered under `issue25`); BENCHMARKS.md keeps the latest figures.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { type BugId, bugIds, parseBugList } from '../src/index.ts';
import { scenarios } from '../scenarios/index.ts';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { huntAll } from './hunt.ts';
import { measureFuzzAll } from './campaign.ts';
import { measureKernel } from './kernel.ts';
import { measureOpenclaw } from './openclaw.ts';
import type { MemoryFigures } from './memory.ts';
import { peerHunt } from './peer/hunt.ts';
import { fixedSpecs, timeSpecs } from './scenarios.ts';
import { round } from './stats.ts';
import { printTable } from './table.ts';
import { measureWorkers } from './workers.ts';

export const sections = ['kernel', 'scenarios', 'workers', 'campaign', 'hunt', 'peer', 'memory', 'openclaw'] as const;
type Section = (typeof sections)[number];

export interface Budget {
  kernelEvents: number;
  kernelRepeats: number;
  scenarioRuns: number;
  workerRuns: number;
  /** Runs per scenario of the timed `fuzz --all` campaign on two workers (section campaign). */
  fuzzAllRunsPerScenario: number;
  campaignSeeds: number;
  huntFocusedRuns: number;
  huntChaosRuns: number;
  huntBugs: readonly BugId[];
  peerRuns: number;
  memoryRuns: number;
  memoryFromRun: number;
}

/** The six seed bugs: the bugs a scenario focuses on (the seeds' own fixes, also in bugIds, are variants to compare). */
const seedBugs: readonly BugId[] = bugIds.filter((bug) => scenarios.some((scenario) => scenario.focus.includes(bug)));

const fullBudget: Budget = {
  kernelEvents: 1_000_000,
  kernelRepeats: 7,
  scenarioRuns: 30,
  workerRuns: 400,
  fuzzAllRunsPerScenario: 100,
  campaignSeeds: 9,
  huntFocusedRuns: 1_000,
  huntChaosRuns: 300,
  huntBugs: seedBugs,
  peerRuns: 200,
  memoryRuns: 20_000,
  memoryFromRun: 2_000,
};

/** About a minute on a quiet 2-core machine: fewer runs everywhere, three seeds, two bugs. */
const quickBudget: Budget = {
  kernelEvents: 200_000,
  kernelRepeats: 3,
  scenarioRuns: 4,
  workerRuns: 6,
  fuzzAllRunsPerScenario: 4,
  campaignSeeds: 3,
  huntFocusedRuns: 100,
  huntChaosRuns: 20,
  huntBugs: ['send-flag', 'flush-cursor'],
  peerRuns: 20,
  memoryRuns: 150,
  memoryFromRun: 50,
};

export const targets = {
  chaosRunsPerSecMin: 50,
  simSecondsPerWallSecondMin: 100_000,
  twoWorkersSpeedupMin: 1.8,
  chaosWallMsToFirstFailureMax: 2_000,
  focusedWallMsToFirstFailureMax: 500,
  shrunkPlanSizeMax: 10,
  rssGrowthMbMax: 16,
};

/** Issue 25's targets (campaign speed), reported under `issue25` beside the figures. */
export const issue25Targets = {
  chaosRunsPerSecOneCoreMin: 60,
  twoWorkersSpeedupMin: 1.8,
  twoWorkersChaosRunsMin: 400,
  fuzzAllMillionRunsHoursOnTwoCoresMax: 8,
  openclawRatioToModelMax: 3,
  peakRssMbOf20000RunsMax: 300,
};

interface Options {
  json?: boolean;
  quick?: boolean;
  only?: Section[];
  seeds?: number;
  peerRuns?: number;
  memoryRuns?: number;
  huntIn?: ('focused' | 'chaos')[];
  bugs?: BugId[];
}

function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function scenarioFigures(budget: Budget): Promise<Record<string, unknown>> {
  const sql = await loadSqlJs();
  const out: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    await timeSpecs(fixedSpecs(scenario, 1, 1_000_000), sql);
    const timing = await timeSpecs(fixedSpecs(scenario, budget.scenarioRuns, 1), sql);
    out[scenario.name] = {
      runsPerSec: round(timing.runs / (timing.wallMs / 1_000), 1),
      simSecondsPerWallSecond: round(timing.simMs / timing.wallMs),
      msPerRun: round(timing.wallMs / timing.runs, 1),
      cpuMsPerRun: round(timing.cpuMs / timing.runs, 1),
      stepsPerRun: round(timing.steps / timing.runs),
      sqlStatementsPerRun: round(timing.sqlStatements / timing.runs),
      cachedReadsPerRun: round(timing.cachedReads / timing.runs),
      skippedDeletesPerRun: round(timing.skippedDeletes / timing.runs),
      simSecondsPerRun: round(timing.simMs / 1_000 / timing.runs),
      runs: timing.runs,
      failures: timing.failures,
    };
    progress(`scenario ${scenario.name}: ${JSON.stringify(out[scenario.name])}`);
  }
  return out;
}

const loadAverage = (): number[] => loadavg().map((value) => round(value, 2));

async function workerFigures(budget: Budget): Promise<Record<string, unknown>> {
  const atStart = loadAverage();
  const one = await measureWorkers(1, budget.workerRuns);
  const two = await measureWorkers(2, budget.workerRuns);
  progress(`workers: 1 -> ${one.runsPerSec} runs/s, 2 -> ${two.runsPerSec} runs/s`);
  return {
    '1': { runsPerSec: one.runsPerSec, runs: one.runs, wallMs: one.wallMs },
    '2': { runsPerSec: two.runsPerSec, runs: two.runs, wallMs: two.wallMs, speedupVsOne: round(two.runsPerSec / one.runsPerSec, 2) },
    loadAverage: { start: atStart, end: loadAverage() },
  };
}

type Figures = Record<string, unknown>;
const at = (figures: Figures, ...path: string[]): unknown => path.reduce<unknown>((value, key) => (value as Figures | undefined)?.[key], figures);

/**
 * Issue 25's figures under stable keys, each taken from the section that measured it (null when that section did not
 * run): chaos runs per second on one core (wall, and per CPU second), the 2-worker speed-up, the projected hours of
 * 1,000,000 `fuzz --all` runs on two cores, peak RSS of the memory campaign, and each OpenClaw release's ratio to the
 * model (section openclaw, bench/openclaw.ts).
 */
function issue25Figures(out: Figures): Figures {
  const chaos = at(out, 'scenarios', 'chaos') as Figures | undefined;
  const openclaw = out.openclaw as Figures | undefined;
  const releases = Object.entries(openclaw ?? {}).filter(([key]) => /^\d{4}\./.test(key));
  return {
    targets: issue25Targets,
    chaosRunsPerSecOneCore: chaos?.runsPerSec ?? null,
    chaosRunsPerCpuSecOneCore: chaos === undefined ? null : round(1_000 / (chaos.cpuMsPerRun as number), 1),
    twoWorkersSpeedup: at(out, 'workers', '2', 'speedupVsOne') ?? null,
    twoWorkersChaosRuns: at(out, 'workers', '2', 'runs') ?? null,
    twoWorkersLoadAverage: at(out, 'workers', 'loadAverage') ?? null,
    fuzzAllMillionRunsHoursOnTwoCores: at(out, 'campaign', 'millionRunsHoursAtMeasuredRate') ?? null,
    fuzzAllMillionRunsHoursOnTwoQuietCores: at(out, 'campaign', 'millionRunsHoursOnTwoQuietCores') ?? null,
    fuzzAllLoadAverage: at(out, 'campaign', 'loadAverage') ?? null,
    peakRssMb: at(out, 'memory', 'peakRssMb') ?? null,
    peakRssRuns: at(out, 'memory', 'runs') ?? null,
    openclawRatioToModel: openclaw === undefined ? null : Object.fromEntries(releases.map(([release, row]) => [release, (row as Figures).ratioToModel ?? null])),
  };
}

async function peerFigures(budget: Budget, seeds: number[]): Promise<Record<string, unknown>> {
  const sql = await loadSqlJs();
  const out: Record<string, unknown> = {};
  for (const bug of budget.huntBugs) {
    out[bug] = await peerHunt([bug], seeds, budget.peerRuns, sql);
    progress(`peer ${bug}: ${(out[bug] as { verdict: string }).verdict}`);
  }
  out.fixedModel = await peerHunt([], seeds.slice(0, 3), budget.peerRuns, sql);
  progress(`peer on the fixed model (false alarms): ${(out.fixedModel as { verdict: string }).verdict}`);
  return out;
}

/** In a child process of its own (`--expose-gc`), so the other sections do not inflate its peak. */
function memoryFigures(budget: Budget): Promise<MemoryFigures> {
  const script = fileURLToPath(new URL('./memory.ts', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, String(budget.memoryRuns), String(budget.memoryFromRun), '--progress'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    const lines = chunk.toString().trim().split('\n').filter((line) => line.startsWith('memory:'));
    const last = lines.at(-1);
    if (last !== undefined && /: (\d*000)\//.test(last)) progress(last);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench/memory.ts exited with ${code}`));
      else resolve(JSON.parse(stdout) as MemoryFigures);
    });
  });
}

async function measure(options: Options): Promise<Record<string, unknown>> {
  const budget: Budget = {
    ...(options.quick === true ? quickBudget : fullBudget),
    ...(options.seeds === undefined ? {} : { campaignSeeds: options.seeds }),
    ...(options.peerRuns === undefined ? {} : { peerRuns: options.peerRuns }),
    ...(options.bugs === undefined ? {} : { huntBugs: options.bugs }),
    ...(options.memoryRuns === undefined ? {} : { memoryRuns: options.memoryRuns, memoryFromRun: Math.round(options.memoryRuns / 10) }),
  };
  const chosen = new Set<Section>(options.only ?? sections);
  const seeds = Array.from({ length: budget.campaignSeeds }, (_, index) => index + 1);
  const out: Record<string, unknown> = {
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageAtStart: loadavg().map((value) => round(value, 2)) },
    quick: options.quick === true,
    targets,
  };
  const sql = await loadSqlJs();
  if (chosen.has('kernel')) {
    const shape = { events: budget.kernelEvents, population: 1_000, processes: 10, delayMsMax: 1_000, repeats: budget.kernelRepeats, warmups: 1 };
    out.kernel = await measureKernel(shape, sql);
    progress(`kernel: ${JSON.stringify(out.kernel).slice(0, 160)}`);
  }
  if (chosen.has('scenarios')) out.scenarios = await scenarioFigures(budget);
  if (chosen.has('workers')) out.workers = await workerFigures(budget);
  if (chosen.has('campaign')) {
    out.campaign = await measureFuzzAll(sql, 2, budget.fuzzAllRunsPerScenario);
    progress(`campaign: ${JSON.stringify(out.campaign)}`);
  }
  if (chosen.has('hunt')) {
    const budgetOfHunt = { campaignSeeds: seeds, focusedRuns: budget.huntFocusedRuns, chaosRuns: budget.huntChaosRuns, ...(options.huntIn === undefined ? {} : { where: options.huntIn }) };
    out.hunt = await huntAll(budgetOfHunt, sql, budget.huntBugs, progress);
  }
  if (chosen.has('peer')) out.peer = await peerFigures(budget, seeds);
  if (chosen.has('memory')) out.memory = await memoryFigures(budget);
  if (chosen.has('openclaw')) {
    out.openclaw = await measureOpenclaw(sql, budget.scenarioRuns);
    progress(`openclaw: ${JSON.stringify(out.openclaw)}`);
  }
  (out.machine as Record<string, unknown>).loadAverageAtEnd = loadavg().map((value) => round(value, 2));
  out.issue25 = issue25Figures(out);
  return out;
}

function positiveInteger(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return Number(value);
}

function sectionList(value: string): Section[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(sections as readonly string[]).includes(name)) throw new InvalidArgumentError(`unknown section "${name}" (known: ${sections.join(', ')})`);
  }
  return names as Section[];
}

function huntPlaces(value: string): ('focused' | 'chaos')[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) if (name !== 'focused' && name !== 'chaos') throw new InvalidArgumentError(`--hunt-in takes focused and/or chaos, got "${name}"`);
  return names as ('focused' | 'chaos')[];
}

function bugList(value: string): BugId[] {
  let bugs: BugId[];
  try {
    bugs = parseBugList(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  const variants = bugs.filter((bug) => !seedBugs.includes(bug));
  if (variants.length > 0) throw new InvalidArgumentError(`${variants.join(', ')}: not a seed bug (a hunt needs a scenario that focuses on it; the seed bugs are ${seedBugs.join(', ')})`);
  return bugs;
}

function program(): Command {
  return new Command('bench')
    .description('Benchmarks: kernel, campaign throughput per scenario, worker scaling, bug hunts against a plain fast-check peer, memory.')
    .option('--json', 'print one JSON object on stdout (progress goes to stderr)')
    .option('--quick', 'a reduced set (fewer runs, three seeds, two bugs), about a minute')
    .option('--only <sections>', `comma-separated subset of ${sections.join(',')}`, sectionList)
    .option('--seeds <n>', 'campaign seeds per hunt (figures are medians over them)', positiveInteger)
    .option('--peer-runs <n>', 'run budget of each peer campaign (a bug not found in it is "not found in N runs")', positiveInteger)
    .option('--hunt-in <where>', 'hunt in the focused scenario, chaos, or both (focused,chaos)', huntPlaces)
    .option('--bugs <ids>', 'the seed bugs to hunt (default: all six)', bugList)
    .option('--memory-runs <n>', 'chaos runs in the memory section (growth measured from a tenth of them)', positiveInteger)
    .exitOverride()
    .showSuggestionAfterError(false)
    .configureOutput({ writeErr: () => {} })
    .action(async (options: Options) => {
      if (options.memoryRuns !== undefined && options.memoryRuns < 20) throw new InvalidArgumentError('--memory-runs must be at least 20');
      const figures = await measure(options);
      if (options.json === true) process.stdout.write(`${JSON.stringify(figures)}\n`);
      else printTable(figures);
    });
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync(argv as string[], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      process.stderr.write(`bench: ${error.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof InvalidArgumentError) {
      process.stderr.write(`bench: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
