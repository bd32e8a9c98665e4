// A `fuzz --all` campaign as the nightly runs it (issue 25's budget: 1,000,000 runs in one night on two cores): every
// scenario in turn through the fuzz driver (`fuzzScenario`, what `npm run sim -- fuzz --all` runs), its runs handed to
// a pool of worker threads (`--workers n`) or done in this thread (one worker). The pool starts and does a short
// warm-up campaign first (another campaign seed), so the timed part is the campaign's steady throughput, not the
// threads' start-up. CPU time is the whole process's (worker threads included), so CPU ms per run counts the driver
// and the threads' message passing too. Two projections of the million runs: from the wall time measured here (at
// this machine's load, said beside it) and from the CPU per run, as if two quiet cores were kept busy.
import { loadavg } from 'node:os';
import type { SqlJsStatic } from 'sql.js';
import { scenarios } from '../scenarios/index.ts';
import { wholeCampaign } from '../sim/cli/campaign.ts';
import { fuzzScenario } from '../sim/cli/fuzz.ts';
import { type Executor, inlineExecutor, poolExecutor } from '../sim/cli/pool.ts';
import { wallNowMs } from '../sim/cli/real.ts';
import { round } from './stats.ts';

export interface FuzzAllFigure {
  workers: number;
  runsPerScenario: number;
  runs: number;
  /** Scenarios that failed on the fixed model (a failure is shrunk, which the timing then includes). */
  failures: string[];
  wallMs: number;
  runsPerSec: number;
  cpuMsPerRun: number;
  /** 1,000,000 runs at the wall-clock rate measured here, at this load. */
  millionRunsHoursAtMeasuredRate: number;
  /** 1,000,000 runs at the CPU per run measured here, spread over two cores that do nothing else. */
  millionRunsHoursOnTwoQuietCores: number;
  loadAverage: { start: number[]; end: number[] };
}

const millionRuns = 1_000_000;

async function campaign(executor: Executor, sql: SqlJsStatic, campaignSeed: number, runsPerScenario: number): Promise<{ runs: number; failures: string[] }> {
  let runs = 0;
  const failures: string[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const outcome = await fuzzScenario(scenario, index, [], campaignSeed, { runs: runsPerScenario, shard: wholeCampaign }, sql, () => {}, { executor });
    runs += outcome.runs;
    if (outcome.failure !== undefined) failures.push(`${scenario.name}: ${outcome.failure.invariant} (${outcome.failure.seed})`);
  }
  return { runs, failures };
}

const loads = (): number[] => loadavg().map((value) => round(value, 2));

export async function measureFuzzAll(sql: SqlJsStatic, workers: number, runsPerScenario: number, warmupRunsPerScenario = 2 * workers): Promise<FuzzAllFigure> {
  const executor = workers === 1 ? inlineExecutor(sql) : poolExecutor(workers);
  try {
    await campaign(executor, sql, 1_000_000, warmupRunsPerScenario);
    const start = loads();
    const startMs = wallNowMs();
    const cpuStart = process.cpuUsage();
    const { runs, failures } = await campaign(executor, sql, 1, runsPerScenario);
    const wallMs = wallNowMs() - startMs;
    const cpu = process.cpuUsage(cpuStart);
    const cpuMsPerRun = (cpu.user + cpu.system) / 1_000 / runs;
    const runsPerSec = runs / (wallMs / 1_000);
    return {
      workers,
      runsPerScenario,
      runs,
      failures,
      wallMs: Math.round(wallMs),
      runsPerSec: round(runsPerSec, 1),
      cpuMsPerRun: round(cpuMsPerRun, 1),
      millionRunsHoursAtMeasuredRate: round(millionRuns / runsPerSec / 3_600, 2),
      millionRunsHoursOnTwoQuietCores: round((millionRuns * cpuMsPerRun) / 2 / 3_600_000, 2),
      loadAverage: { start, end: loads() },
    };
  } finally {
    await executor.close();
  }
}
