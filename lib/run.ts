// Thin builders over the harness and the fuzz driver, for a gateway engineer's own code and tests: run a scenario
// from a seed, replay a seed string, fuzz a scenario. Each names its run by a seed string, the same token the command
// line prints and `gatesim repro` replays.
import type { BugId, ModelComponents, ReplaceableProcess } from '../src/index.ts';
import { findScenario, type Scenario, scenarioNames, scenarios } from '../scenarios/index.ts';
import type { Violation } from '../sim/checkers/index.ts';
import { loadSqlJs } from '../sim/kernel/sqlite.ts';
import type { FaultCoverage } from '../sim/run/coverage.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { type RunResult, runSpec } from '../sim/run/harness.ts';
import { fuzzScenario } from '../sim/cli/fuzz.ts';
import { freshSeed } from '../sim/cli/real.ts';
import { runText } from '../sim/cli/report.ts';
import { decodeSeedString, encodeSeedString, runOptionsOf, SeedStringError, tagsOf, verifySeedString } from '../sim/cli/seed-string.ts';

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** The plan seed; a fresh one when left out (the seed string in the result replays it). */
  seed?: number;
  /** Seed bugs to switch on in the built-in model; none by default. */
  bugs?: readonly BugId[];
  /** Processes to run with components of one's own, over the scenario's own `components`. */
  components?: ModelComponents;
}

/** One finished run: its seed string, the harness's result, and the report the command line would print. */
export interface ScenarioRun {
  /** The seed string that replays this run (`gatesim repro <seed>` or {@link reproduce}). */
  seed: string;
  /** Verdict, violations, trace hash, the ground-truth ledger and the simulation (its databases are closed). */
  result: RunResult;
  /** The human-readable report: the seed string first, then the violations and a timeline. */
  report: string;
}

/** The scenario of that name, registered or built-in; throws naming the known ones otherwise. */
export function scenarioNamed(name: string): Scenario {
  const scenario = findScenario(name);
  if (scenario === undefined) throw new Error(`unknown scenario "${name}" (known: ${scenarioNames.join(', ')})`);
  return scenario;
}

function resolveScenario(scenario: string | Scenario): Scenario {
  const found = scenarioNamed(typeof scenario === 'string' ? scenario : scenario.name);
  if (typeof scenario !== 'string' && found !== scenario) throw new Error(`scenario "${scenario.name}" is not the registered one of that name`);
  return found;
}

/** Run one scenario from a plan seed and check every invariant (built-in and registered). */
export async function runScenario(scenario: string | Scenario, options: RunScenarioOptions = {}): Promise<ScenarioRun> {
  const chosen = resolveScenario(scenario);
  const bugs = [...(options.bugs ?? [])];
  const seed = options.seed ?? freshSeed();
  const spec = generateSpec(chosen, bugs, seed, undefined);
  const seedString = encodeSeedString({ scenario: chosen.name, custom: customOf(options), bugs, seed, path: undefined }, spec);
  return finish(seedString, await runSpec(spec, { sql: await loadSqlJs(), ...components(options) }));
}

/** Options of {@link reproduce}. */
export interface ReproduceOptions {
  /** Replay the same plan with another bug set (as `repro --bugs`); the seed string's own by default. */
  bugs?: readonly BugId[];
  /** Processes to run with components of one's own, over the scenario's own `components`. */
  components?: ModelComponents;
}

/**
 * Replay a run exactly from its seed string. Throws SeedStringError for a malformed string, an unknown scenario or
 * one made by a build whose scenarios differ. Components passed to the run that made the string (rather than
 * declared by its scenario) must be passed again, for the same processes (the string names them): a replay without
 * them, or with others, is refused rather than run with different components.
 */
export async function reproduce(seedString: string, options: ReproduceOptions = {}): Promise<ScenarioRun> {
  const decoded = decodeSeedString(seedString);
  const named = [...(decoded.custom ?? [])];
  const given = customOf(options);
  if (named.join(',') !== given.join(',')) {
    const want = named.length === 0 ? 'the built-in components (pass no `components`)' : `components of your own for ${named.join(', ')}`;
    throw new SeedStringError(`seed string ran ${want}, but this replay was given ${given.length === 0 ? 'none' : `components for ${given.join(', ')}`}: pass \`components\` for exactly the processes the string names`);
  }
  const scenario = scenarioNamed(decoded.scenario);
  const spec = generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path);
  verifySeedString(decoded, spec);
  const bugs = options.bugs === undefined ? decoded.bugs : [...options.bugs];
  const realParts = runOptionsOf(decoded);
  const seed = options.bugs === undefined ? seedString.trim() : encodeSeedString({ ...tagsOf(decoded), scenario: scenario.name, bugs, seed: decoded.seed, path: decoded.path }, { ...spec, bugs });
  return finish(seed, await runSpec({ ...spec, bugs }, { sql: await loadSqlJs(), ...realParts, ...components(options) }));
}

/** Options of {@link fuzz}. */
export interface FuzzOptions {
  /** Seed bugs to switch on in the built-in model; none by default. */
  bugs?: readonly BugId[];
  /** How many plans to try (default 100). */
  runs?: number;
  /** The campaign seed; a fresh one when left out (reported, and the failure's seed string replays exactly). */
  seed?: number;
  /** Count a run as failing only if it violates this invariant (a targeted hunt). */
  invariant?: string;
  /** Processes to run with components of one's own, over the scenario's own `components`. */
  components?: ModelComponents;
}

/** A fuzz campaign's failure, shrunk to a small plan. */
export interface FuzzFailureReport {
  /** The seed string of the shrunk counterexample. */
  seed: string;
  /** The first violated invariant. */
  invariant: string;
  violations: Violation[];
  /** 1-based index of the run that first failed. */
  run: number;
  /** Runs spent shrinking. */
  shrinkRuns: number;
  /** Whether the shrink finished; false: it stopped at its budget of runs, and the plan may not be minimal. */
  shrinkComplete: boolean;
  /** The report of the shrunk run: the seed string first, then the violations and a timeline. */
  report: string;
}

/** The outcome of {@link fuzz}. */
export interface FuzzReport {
  scenario: string;
  /** The campaign seed (pass it back as `seed` to repeat the campaign). */
  campaignSeed: number;
  /** Runs made before the first failure, or all of them. */
  runs: number;
  /** The first failure, shrunk; undefined when every run passed. */
  failure: FuzzFailureReport | undefined;
  /** Faults landed, by fault type and the turn phase they landed in. */
  coverage: FaultCoverage;
}

/** Fuzz one scenario: fast-check generates plans, each runs through the harness, the first failure is shrunk. */
export async function fuzz(scenario: string | Scenario, options: FuzzOptions = {}): Promise<FuzzReport> {
  const chosen = resolveScenario(scenario);
  const campaignSeed = options.seed ?? freshSeed();
  const runs = options.runs ?? 100;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive integer, got ${runs}`);
  const limits = { runs, shard: { index: 0, count: 1 }, ...(options.invariant === undefined ? {} : { invariant: options.invariant }) };
  const outcome = await fuzzScenario(chosen, scenarios.indexOf(chosen), [...(options.bugs ?? [])], campaignSeed, limits, await loadSqlJs(), () => {}, { runOptions: components(options) });
  const failure = outcome.failure;
  const report = failure === undefined ? '' : runText(failure.seed, failure.result);
  failure?.result.sim.dispose();
  return {
    scenario: chosen.name,
    campaignSeed,
    runs: outcome.runs,
    coverage: outcome.coverage,
    failure:
      failure === undefined
        ? undefined
        : { seed: failure.seed, invariant: failure.invariant, violations: failure.violations, run: failure.run, shrinkRuns: failure.shrinkRuns, shrinkComplete: failure.shrinkComplete, report },
  };
}

/** The processes a caller's own components replace, sorted: what a seed string records of them. */
function customOf(options: { components?: ModelComponents }): ReplaceableProcess[] {
  return (Object.keys(options.components ?? {}) as ReplaceableProcess[]).sort();
}

function components(options: { components?: ModelComponents }): { components?: ModelComponents } {
  return options.components === undefined ? {} : { components: options.components };
}

function finish(seedString: string, result: RunResult): ScenarioRun {
  const report = runText(seedString, result);
  result.sim.dispose();
  return { seed: seedString, result, report };
}

export { SeedStringError };
