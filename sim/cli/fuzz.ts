// The fuzz driver: fast-check generates plans for a scenario, runs each through the harness, and on the first
// failure shrinks it to a small plan. A campaign is cut into chunks of runs; chunk c of a scenario uses fast-check
// seed chunkSeed(campaign, scenario, c), so a shard takes every n-th chunk and the shards of a campaign cover the
// same runs as the whole campaign. Shrinking has a deterministic budget (a count of runs, never a clock), so the
// shrunk plan and its seed string are the same on every machine.
import fc from 'fast-check';
import type { SqlJsStatic } from 'sql.js';
import type { BugId } from '../../src/index.ts';
import type { Scenario } from '../../scenarios/index.ts';
import { addCoverage, emptyCoverage, type FaultCoverage } from '../run/coverage.ts';
import { runArbitrary, toSpec } from '../run/generate.ts';
import { type RunResult, runSpec } from '../run/harness.ts';
import type { Plan } from '../run/plan.ts';
import { encodeSeedString } from './seed-string.ts';
import { assert } from '../kernel/assert.ts';
import type { Violation } from '../checkers/index.ts';

export const chunkRuns = 50;
export const shrinkRunsMax = 300;

export interface FuzzLimits {
  /** Count a run as failing only if it violates this invariant (a targeted hunt); any invariant by default. */
  invariant?: string;
  /** Runs per scenario over the whole campaign (all shards). */
  runs?: number;
  /** Or: stop starting new chunks after this many wall seconds (checked by the caller's clock). */
  deadline?: () => boolean;
  shard: { index: number; count: number };
  /** Called when the first failing run ends, before shrinking starts (the benchmark times detection apart from it). */
  onFirstFailure?: () => void;
}

export interface FuzzFailure {
  scenario: string;
  seed: string;
  invariant: string;
  steps: number;
  violations: Violation[];
  /** 1-based index of the failing run within this scenario's campaign. */
  run: number;
  shrinkRuns: number;
  result: RunResult;
}

export interface ScenarioOutcome {
  scenario: string;
  runs: number;
  failure: FuzzFailure | undefined;
  coverage: FaultCoverage;
}

export function chunkSeed(campaignSeed: number, scenarioIndex: number, chunk: number): number {
  return (((campaignSeed % 1_000_003) * 7_919 + scenarioIndex * 104_729 + chunk * 15_485_863) % 2_147_483_647 + 2_147_483_647) % 2_147_483_647;
}

export async function fuzzScenario(
  scenario: Scenario,
  scenarioIndex: number,
  bugs: BugId[],
  campaignSeed: number,
  limits: FuzzLimits,
  sql: SqlJsStatic,
  onProgress: (runsDone: number) => void,
): Promise<ScenarioOutcome> {
  const coverage = emptyCoverage();
  let runs = 0;
  const totalChunks = limits.runs === undefined ? Number.POSITIVE_INFINITY : Math.ceil(limits.runs / chunkRuns);
  for (let chunk = limits.shard.index; chunk < totalChunks; chunk += limits.shard.count) {
    if (limits.deadline?.() === true) break;
    const numRuns = limits.runs === undefined ? chunkRuns : Math.min(chunkRuns, limits.runs - chunk * chunkRuns);
    const seed = chunkSeed(campaignSeed, scenarioIndex, chunk);
    const failure = await fuzzChunk(scenario, bugs, seed, numRuns, sql, coverage, limits, (done) => onProgress(runs + done));
    if (failure !== undefined) {
      runs += failure.firstFailureRun;
      return { scenario: scenario.name, runs, coverage, failure: { ...failure.failure, run: runs } };
    }
    runs += numRuns;
    onProgress(runs);
  }
  return { scenario: scenario.name, runs, coverage, failure: undefined };
}

async function fuzzChunk(
  scenario: Scenario,
  bugs: BugId[],
  seed: number,
  numRuns: number,
  sql: SqlJsStatic,
  coverage: FaultCoverage,
  limits: Pick<FuzzLimits, 'invariant' | 'onFirstFailure'>,
  onRun: (done: number) => void,
): Promise<{ failure: FuzzFailure; firstFailureRun: number } | undefined> {
  const invariant = limits.invariant;
  const fails = (result: RunResult): boolean =>
    invariant === undefined ? result.verdict === 'fail' : result.violations.some((violation) => violation.invariant === invariant);
  let generated = 0;
  let firstFailureRun = 0;
  let shrinkRuns = 0;
  const property = fc.asyncProperty(runArbitrary(scenario), async (value: [Plan, number]) => {
    if (firstFailureRun > 0) {
      // Shrinking: a fixed budget of runs, then every further candidate counts as passing.
      if (shrinkRuns >= shrinkRunsMax) return true;
      shrinkRuns++;
    } else {
      generated++;
      onRun(generated);
    }
    const result = await runSpec(toSpec(scenario, bugs, value), { sql });
    result.sim.dispose();
    if (firstFailureRun === 0) addCoverage(coverage, result.coverage);
    if (!fails(result)) return true;
    if (firstFailureRun === 0) {
      firstFailureRun = generated;
      limits.onFirstFailure?.();
    }
    return false;
  });
  const outcome = await fc.check(property, { seed, numRuns });
  if (!outcome.failed) return undefined;
  const path = outcome.counterexamplePath ?? undefined;
  const value = outcome.counterexample?.[0] as [Plan, number];
  const spec = toSpec(scenario, bugs, value);
  // Re-run the shrunk counterexample itself, so the report describes exactly what the seed string replays.
  const result = await runSpec(spec, { sql });
  assert(fails(result), `the shrunk counterexample of ${scenario.name} passes when run again: shrinking is not deterministic`);
  const first = result.violations.find((violation) => invariant === undefined || violation.invariant === invariant);
  const seedString = encodeSeedString({ scenario: scenario.name, bugs, seed, path: path ?? undefined }, spec);
  return {
    firstFailureRun,
    failure: {
      scenario: scenario.name,
      seed: seedString,
      invariant: first?.invariant ?? 'unknown',
      steps: result.steps,
      violations: result.violations,
      run: firstFailureRun,
      shrinkRuns,
      result,
    },
  };
}
