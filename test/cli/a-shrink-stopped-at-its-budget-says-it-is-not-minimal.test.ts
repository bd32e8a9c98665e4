// A shrink has a budget of runs (fuzz-task.ts shrinkRunsMax): one that spends it while fast-check still has candidates
// to try says so, exactly (a shrink that ends on its last run is complete), in the FAIL line ("shrink stopped at <N>
// runs; not minimal") and in `fuzz --json` (shrinkComplete, shrinkRunsMax), the same on worker threads as on one.
import { beforeAll, describe, expect, it } from 'vitest';
import { findScenario, scenarios } from '../../scenarios/index.ts';
import { wholeCampaign } from '../../sim/cli/campaign.ts';
import { type FuzzFailure, fuzzScenario } from '../../sim/cli/fuzz.ts';
import { failureJson } from '../../sim/cli/fuzz-command.ts';
import { shrinkText } from '../../sim/cli/report.ts';
import { shrinkRunsMax } from '../../sim/cli/fuzz-task.ts';
import { type Executor, poolExecutor } from '../../sim/cli/pool.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { cli } from './support.ts';

// send-mid-turn with send-flag on fails at run 1 of campaign seed 3; its shrink finishes in a few dozen runs.
const scenario = findScenario('send-mid-turn');
const campaign = { bugs: ['send-flag' as const], seed: 3, runs: 20 };

async function shrunkWith(budget: number | undefined, executor?: Executor): Promise<FuzzFailure> {
  if (scenario === undefined) throw new Error('no send-mid-turn scenario');
  const sql = await loadSqlJs();
  const limits = { runs: campaign.runs, shard: wholeCampaign, ...(budget === undefined ? {} : { shrinkRunsMax: budget }) };
  const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), campaign.bugs, campaign.seed, limits, sql, () => {}, executor === undefined ? {} : { executor });
  if (outcome.failure === undefined) throw new Error('send-mid-turn with send-flag did not fail');
  outcome.failure.result.sim.dispose();
  return outcome.failure;
}

describe('a shrink and its budget', () => {
  let full: FuzzFailure;
  beforeAll(async () => {
    full = await shrunkWith(undefined);
  }, 120_000);

  it('a shrink that finishes under the budget is complete', () => {
    expect(full.shrinkRuns).toBeGreaterThan(3);
    expect(full.shrinkRuns).toBeLessThan(shrinkRunsMax);
    expect(full.shrinkComplete).toBe(true);
    expect(full.shrinkRunsMax).toBe(shrinkRunsMax);
    expect(shrinkText(full)).toBe(`shrunk in ${full.shrinkRuns} runs`);
    expect(failureJson(full)).toMatchObject({ shrinkRuns: full.shrinkRuns, shrinkComplete: true, shrinkRunsMax });
  });

  it('a budget of exactly the runs the shrink needs still finishes it; one run less stops it, not minimal', async () => {
    const exact = await shrunkWith(full.shrinkRuns);
    expect(exact).toMatchObject({ seed: full.seed, shrinkRuns: full.shrinkRuns, shrinkComplete: true, shrinkRunsMax: full.shrinkRuns });
    const short = await shrunkWith(full.shrinkRuns - 1);
    expect(short).toMatchObject({ shrinkRuns: full.shrinkRuns - 1, shrinkComplete: false, shrinkRunsMax: full.shrinkRuns - 1 });
    // (Its plan may be the same: the shrink's last run tried a candidate that passed. Unrun, it is not known to pass.)
  }, 120_000);

  it('a stopped shrink says so in the FAIL line and in the JSON, with the same fields on worker threads', async () => {
    const stopped = await shrunkWith(3);
    expect(stopped).toMatchObject({ shrinkRuns: 3, shrinkComplete: false, shrinkRunsMax: 3 });
    expect(stopped.seed, 'after 3 runs the plan is not yet the shrink\'s end').not.toBe(full.seed);
    expect(shrinkText(stopped)).toBe('shrink stopped at 3 runs; not minimal');
    const json = failureJson(stopped);
    expect(json).toMatchObject({ shrinkRuns: 3, shrinkComplete: false, shrinkRunsMax: 3 });
    const pool = poolExecutor(2);
    try {
      const onWorkers = await shrunkWith(3, pool);
      expect(failureJson(onWorkers)).toEqual(json);
    } finally {
      await pool.close();
    }
  }, 300_000);
});

describe('fuzz --json and the shrink', () => {
  let stdout = '';
  let status = -1;
  beforeAll(() => {
    ({ stdout, status } = cli(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', String(campaign.runs), '--seed', String(campaign.seed), '--json']));
  }, 120_000);

  it('each failure says whether its shrink finished, and its budget', () => {
    expect(status).toBe(1);
    const json = JSON.parse(stdout) as { failures: Record<string, unknown>[] };
    expect(json.failures).toHaveLength(1);
    expect(json.failures[0]).toMatchObject({ shrinkRuns: expect.any(Number), shrinkComplete: true, shrinkRunsMax });
  });
});
