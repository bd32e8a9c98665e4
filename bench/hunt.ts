// Hunts: how long gatesim takes to find each seed bug, through the fuzz driver exactly as `npm run sim -- fuzz`
// runs it. For each bug id, campaigns with the bug switched on in its focused scenario and in chaos, one campaign
// per campaign seed; each reports the runs up to the first failing run, the wall time until that run ended (before
// shrinking), the wall time until the shrunk counterexample was ready, and the size of the shrunk plan (workload
// steps plus fault steps). A figure is the median over the campaigns; a campaign that found nothing within its run
// budget counts as "not found" (above every number).
import type { SqlJsStatic } from 'sql.js';
import { type BugId, bugIds } from '../src/index.ts';
import { type Scenario, scenarios } from '../scenarios/index.ts';
import { fuzzScenario } from '../sim/cli/fuzz.ts';
import { wallNowMs } from '../sim/cli/real.ts';
import { medianFound, round } from './stats.ts';

export interface Campaign {
  campaignSeed: number;
  found: boolean;
  runs: number;
  wallMsToFirstFailure: number | undefined;
  wallMsToShrunkFailure: number | undefined;
  shrunkPlanSize: number | undefined;
  invariant: string | undefined;
}

export interface HuntFigures {
  scenario: string;
  campaigns: number;
  found: number;
  runsBudget: number;
  /** Medians over the campaigns; null when more than half found nothing within the budget. */
  runsToFirstFailure: number | null;
  wallMsToFirstFailure: number | null;
  wallMsToShrunkFailure: number | null;
  shrunkPlanSize: number | null;
  invariants: string[];
  samples: Campaign[];
}

export function focusedScenario(bug: BugId): Scenario {
  const scenario = scenarios.find((candidate) => candidate.focus.includes(bug));
  if (scenario === undefined) throw new Error(`no scenario focuses on ${bug}`);
  return scenario;
}

export async function campaign(scenario: Scenario, bug: BugId, campaignSeed: number, runsBudget: number, sql: SqlJsStatic): Promise<Campaign> {
  let detectedMs: number | undefined;
  const startMs = wallNowMs();
  const outcome = await fuzzScenario(
    scenario,
    scenarios.indexOf(scenario),
    [bug],
    campaignSeed,
    { runs: runsBudget, shard: { index: 0, count: 1 }, onFirstFailure: () => (detectedMs ??= wallNowMs() - startMs) },
    sql,
    () => {},
  );
  const doneMs = wallNowMs() - startMs;
  const failure = outcome.failure;
  if (failure === undefined) {
    return { campaignSeed, found: false, runs: outcome.runs, wallMsToFirstFailure: undefined, wallMsToShrunkFailure: undefined, shrunkPlanSize: undefined, invariant: undefined };
  }
  failure.result.sim.dispose();
  const plan = failure.result.spec.plan;
  return {
    campaignSeed,
    found: true,
    runs: failure.run,
    wallMsToFirstFailure: round(detectedMs ?? doneMs),
    wallMsToShrunkFailure: round(doneMs),
    shrunkPlanSize: plan.workload.length + plan.faults.length,
    invariant: failure.invariant,
  };
}

export async function hunt(
  scenario: Scenario,
  bug: BugId,
  campaignSeeds: readonly number[],
  runsBudget: number,
  sql: SqlJsStatic,
): Promise<HuntFigures> {
  const samples: Campaign[] = [];
  for (const campaignSeed of campaignSeeds) samples.push(await campaign(scenario, bug, campaignSeed, runsBudget, sql));
  const pick = (value: (sample: Campaign) => number | undefined): number | null => {
    const middle = medianFound(samples.map((sample) => (sample.found ? value(sample) : undefined)));
    return middle === undefined ? null : round(middle, 1);
  };
  return {
    scenario: scenario.name,
    campaigns: samples.length,
    found: samples.filter((sample) => sample.found).length,
    runsBudget,
    runsToFirstFailure: pick((sample) => sample.runs),
    wallMsToFirstFailure: pick((sample) => sample.wallMsToFirstFailure),
    wallMsToShrunkFailure: pick((sample) => sample.wallMsToShrunkFailure),
    shrunkPlanSize: pick((sample) => sample.shrunkPlanSize),
    invariants: [...new Set(samples.flatMap((sample) => (sample.invariant === undefined ? [] : [sample.invariant])))].sort(),
    samples,
  };
}

export interface HuntBudget {
  campaignSeeds: number[];
  focusedRuns: number;
  chaosRuns: number;
  /** Where to hunt: the bug's focused scenario, chaos, or both (default). */
  where?: readonly ('focused' | 'chaos')[];
}

const summary = (figures: HuntFigures): string =>
  JSON.stringify({ ...figures, samples: figures.samples.map((sample) => [sample.runs, sample.wallMsToFirstFailure, sample.wallMsToShrunkFailure, sample.shrunkPlanSize]) });

/** Every bug, focused and chaos. `onDone` hears each hunt as it finishes (progress on stderr). */
export async function huntAll(
  budget: HuntBudget,
  sql: SqlJsStatic,
  bugs: readonly BugId[] = bugIds,
  onDone?: (line: string) => void,
): Promise<Record<string, { focused?: HuntFigures; chaos?: HuntFigures }>> {
  const chaos = scenarios.find((scenario) => scenario.name === 'chaos');
  if (chaos === undefined) throw new Error('no chaos scenario');
  const where = budget.where ?? ['focused', 'chaos'];
  const out: Record<string, { focused?: HuntFigures; chaos?: HuntFigures }> = {};
  for (const bug of bugs) {
    const figures: { focused?: HuntFigures; chaos?: HuntFigures } = {};
    if (where.includes('focused')) {
      figures.focused = await hunt(focusedScenario(bug), bug, budget.campaignSeeds, budget.focusedRuns, sql);
      onDone?.(`hunt ${bug} focused: ${summary(figures.focused)}`);
    }
    if (where.includes('chaos')) {
      figures.chaos = await hunt(chaos, bug, budget.campaignSeeds, budget.chaosRuns, sql);
      onDone?.(`hunt ${bug} chaos: ${summary(figures.chaos)}`);
    }
    out[bug] = figures;
  }
  return out;
}
