// Where a seed's fix falls short (docs/MODEL.md): a differential campaign. Run r draws the same plan as run r of
// `fuzz --scenario S --bugs V --seed C`; it counts only when the variant fails and the baseline (the fixed model)
// passes that plan. A run that fails on both is the fixed model's own failure and is listed apart. A pattern can
// narrow the count to the variant's own symptom: a variant that changes the schedule (one more SQL statement, one
// disk operation fewer) can steer a plan into a failure the fixed model has elsewhere, which is no fault of the fix.
// The first run that counts is shrunk under the same two-sided predicate, keeping its first invariant, with the
// fuzz driver's budget, and printed as a seed string `repro` replays.
//   npx tsx bench/fall-short.ts <scenario> <variant> [--seed 1] [--runs 2000] [--match <regex>] [--all]
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import fc from 'fast-check';
import type { SqlJsStatic } from 'sql.js';
import { type BugId, parseBugList, UnknownBugError } from '../src/index.ts';
import { findScenario, type Scenario, scenarios } from '../scenarios/index.ts';
import { runSeed } from '../sim/cli/campaign.ts';
import { shrinkRunsMax } from '../sim/cli/fuzz-task.ts';
import { encodeSeedString } from '../sim/cli/seed-string.ts';
import { assert } from '../sim/kernel/assert.ts';
import { loadSqlJs } from '../sim/kernel/sqlite.ts';
import { generateSpec, runArbitrary, toSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';
import type { Plan } from '../sim/run/plan.ts';

export interface FallShortOptions {
  scenario: Scenario;
  variant: BugId[];
  /** The bug set the variant is judged against; the fixed model (none) unless a test says otherwise. */
  baseline?: BugId[];
  campaignSeed: number;
  runs: number;
  /** Count a variant's failure only if one of its violation messages matches. */
  match?: RegExp;
  /** Go on past the first run that counts and list every one, unshrunk. */
  all?: boolean;
  shrinkRunsMax?: number;
}

/** One run of the campaign that failed: its 1-based index, its fast-check seed, the invariants each side broke. */
export interface FailedRun {
  run: number;
  seed: number;
  variant: string[];
  baseline: string[];
}

export interface FallShortReport {
  runs: number;
  /** Runs that fail with the variant and with the baseline as well. */
  shared: FailedRun[];
  /** Runs that fail with the variant only (the first one alone unless `all`). */
  variantOnly: FailedRun[];
  /** The first variant-only run, shrunk (not with `all`). */
  shrunk: { seedString: string; shrinkRuns: number } | undefined;
}

type Value = [Plan, number];

async function brokenInvariants(scenario: Scenario, bugs: BugId[], value: Value, sql: SqlJsStatic, match: RegExp | undefined): Promise<string[]> {
  const result = await runSpec(toSpec(scenario, bugs, value), { sql });
  result.sim.dispose();
  const counted = result.violations.filter((violation) => match === undefined || match.test(violation.message));
  return [...new Set(counted.map((violation) => violation.invariant))];
}

export async function fallShort(options: FallShortOptions, sql: SqlJsStatic): Promise<FallShortReport> {
  const { scenario, variant, campaignSeed } = options;
  const baseline = options.baseline ?? [];
  const scenarioIndex = scenarios.indexOf(scenario);
  assert(scenarioIndex >= 0, `scenario ${scenario.name} is not registered`);
  const report: FallShortReport = { runs: 0, shared: [], variantOnly: [], shrunk: undefined };
  for (let run = 0; run < options.runs; run++) {
    report.runs++;
    const seed = runSeed(campaignSeed, scenarioIndex, run);
    const spec = generateSpec(scenario, variant, seed, undefined);
    const value: Value = [spec.plan, spec.seed];
    const variantBroke = await brokenInvariants(scenario, variant, value, sql, options.match);
    if (variantBroke.length === 0) continue;
    const baselineBroke = await brokenInvariants(scenario, baseline, value, sql, undefined);
    const failed = { run: run + 1, seed, variant: variantBroke, baseline: baselineBroke };
    if (baselineBroke.length > 0) {
      report.shared.push(failed);
      continue;
    }
    report.variantOnly.push(failed);
    if (options.all === true) continue;
    report.shrunk = await shrink(options, failed, sql);
    break;
  }
  return report;
}

/** fast-check's shrinking of the run, a candidate failing only while the variant breaks the same invariant and the baseline passes. */
async function shrink(options: FallShortOptions, failed: FailedRun, sql: SqlJsStatic): Promise<{ seedString: string; shrinkRuns: number }> {
  const { scenario, variant } = options;
  const baseline = options.baseline ?? [];
  const invariant = failed.variant[0] as string;
  const budget = options.shrinkRunsMax ?? shrinkRunsMax;
  let shrinkRuns = -1;
  const property = fc.asyncProperty(runArbitrary(scenario), async (value: Value) => {
    // The first call is the failing run itself; past the budget every candidate counts as passing.
    if (shrinkRuns >= budget) return true;
    shrinkRuns++;
    if (!(await brokenInvariants(scenario, variant, value, sql, options.match)).includes(invariant)) return true;
    return (await brokenInvariants(scenario, baseline, value, sql, undefined)).length > 0;
  });
  const outcome = await fc.check(property, { seed: failed.seed, numRuns: 1 });
  assert(outcome.failed, `run ${failed.run} passes when shrinking starts: runs are not deterministic`);
  const value = outcome.counterexample?.[0] as Value;
  const header = { scenario: scenario.name, bugs: variant, seed: failed.seed, path: outcome.counterexamplePath ?? undefined };
  return { seedString: encodeSeedString(header, toSpec(scenario, variant, value)), shrinkRuns: Math.max(0, shrinkRuns) };
}

function describe(failed: FailedRun): string {
  const baseline = failed.baseline.length === 0 ? '' : `; fixed model: ${failed.baseline.join(', ')}`;
  return `run ${failed.run}: variant: ${failed.variant.join(', ')}${baseline}`;
}

class UsageError extends Error {}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a positive integer');
  return value;
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('fall-short')
    .argument('<scenario>')
    .argument('<variant>', 'bug ids, comma-separated')
    .option('--seed <n>', 'campaign seed', positiveInteger, 1)
    .option('--runs <n>', 'runs of the campaign', positiveInteger, 2_000)
    .option('--match <regex>', "count a variant's failure only if a violation message matches")
    .option('--all', 'list every run that counts instead of shrinking the first')
    .exitOverride();
  program.parse(argv, { from: 'user' });
  const [scenarioName, variantText] = program.args as [string, string];
  const scenario = findScenario(scenarioName);
  if (scenario === undefined) throw new UsageError(`unknown scenario "${scenarioName}" (known: ${scenarios.map((known) => known.name).join(', ')})`);
  const flags = program.opts<{ seed: number; runs: number; match?: string; all?: boolean }>();
  const options = { scenario, variant: parseBugList(variantText), campaignSeed: flags.seed, runs: flags.runs, ...(flags.match === undefined ? {} : { match: new RegExp(flags.match) }), ...(flags.all === true ? { all: true } : {}) };
  const report = await fallShort(options, await loadSqlJs());
  const print = (line: string): boolean => process.stdout.write(`${line}\n`);
  print(`${scenario.name} ${variantText}, campaign seed ${flags.seed}: ${report.runs} runs`);
  for (const failed of report.shared) print(`  fails on both, ${describe(failed)}`);
  for (const failed of report.variantOnly) print(`  falls short, ${describe(failed)}`);
  if (report.shrunk !== undefined) print(`  shrunk in ${report.shrunk.shrinkRuns} runs: ${report.shrunk.seedString}`);
  if (report.variantOnly.length === 0) print('  holds: no run fails with the variant where the fixed model passes');
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof CommanderError && error.code === 'commander.helpDisplayed') return 0;
    // Commander has printed its own message; ours are one line each. Bad input exits 2.
    if (error instanceof CommanderError) return 2;
    if (error instanceof UsageError || error instanceof UnknownBugError) {
      process.stderr.write(`fall-short: ${error.message}\n`);
      return 2;
    }
    throw error;
  });
}
