// The runs fuzz --check-determinism replays are a pure function of the campaign seed, the scenario and the run index:
// the same with one worker and with a pool of two, and in every shard (a shard's sampled runs are its own runs, and
// the shards' together are the whole campaign's). Only runs the campaign consumed are checked (none after the first
// failure), and a failure's shrink and seed string are the same with the check as without it.
import { describe, expect, it } from 'vitest';
import { scenarios } from '../../scenarios/index.ts';
import { type Shard, shardRuns, wholeCampaign } from '../../sim/cli/campaign.ts';
import { checksRun, compareTraces, type DeterminismOutcome } from '../../sim/cli/determinism-check.ts';
import { fuzzScenario, type ScenarioOutcome } from '../../sim/cli/fuzz.ts';
import { type Executor, freshThreadExecutor, poolExecutor } from '../../sim/cli/pool.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { BugId } from '../../src/index.ts';

const fraction = 0.5;

async function campaign(name: string, bugs: BugId[], runs: number, shard: Shard, options: { check: boolean; executor?: Executor }): Promise<{ outcome: ScenarioOutcome; checked: number[]; determinism: DeterminismOutcome[] }> {
  const scenario = scenarios.find((candidate) => candidate.name === name);
  if (scenario === undefined) throw new Error(name);
  const fresh = freshThreadExecutor({ loads: [], cwd: process.cwd() });
  const checked: number[] = [];
  const determinism: DeterminismOutcome[] = [];
  try {
    const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, 3, { runs, shard, shrinkRunsMax: 10 }, await loadSqlJs(), () => {}, {
      ...(options.executor === undefined ? {} : { executor: options.executor }),
      ...(options.check ? { determinism: { fraction, fresh }, onRunChecked: ({ run }: { run: number }) => checked.push(run), onDeterminism: (found: DeterminismOutcome) => determinism.push(found) } : {}),
    });
    return { outcome, checked, determinism };
  } finally {
    await fresh.close();
  }
}

function sampled(name: string, runs: number, shard: Shard, campaignSeed = 3): number[] {
  const index = scenarios.findIndex((candidate) => candidate.name === name);
  return [...shardRuns(runs, shard)].filter((run) => checksRun(campaignSeed, index, run, fraction));
}

describe('the runs the determinism check replays', () => {
  it('are drawn from the campaign seed and run index: about the fraction asked for, and every run at 1', () => {
    const runs = Array.from({ length: 2_000 }, (_, run) => run);
    const share = runs.filter((run) => checksRun(7, 0, run, 0.1)).length / runs.length;
    expect(share).toBeGreaterThan(0.08);
    expect(share).toBeLessThan(0.12);
    expect(runs.every((run) => checksRun(7, 0, run, 1))).toBe(true);
    expect(runs.filter((run) => checksRun(7, 0, run, 0.1))).toEqual(runs.filter((run) => checksRun(7, 0, run, 0.1)));
    expect(runs.filter((run) => checksRun(7, 0, run, 0.1))).not.toEqual(runs.filter((run) => checksRun(8, 0, run, 0.1)));
  });

  it('are the same with one worker and two, and a shard checks its own sampled runs', async () => {
    const one = await campaign('send-mid-turn', [], 8, wholeCampaign, { check: true });
    const pool = poolExecutor(2);
    let two;
    try {
      two = await campaign('send-mid-turn', [], 8, wholeCampaign, { check: true, executor: pool });
    } finally {
      await pool.close();
    }
    expect(one.checked.length).toBeGreaterThan(0);
    expect(one.checked).toEqual(sampled('send-mid-turn', 8, wholeCampaign));
    expect(two.checked).toEqual(one.checked);
    expect(one.determinism).toEqual([{ checked: one.checked.length, mismatch: undefined }]);
    expect(two.determinism).toEqual(one.determinism);
    const shards = [];
    for (const index of [0, 1]) {
      const shard = { index, count: 2 };
      const part = await campaign('send-mid-turn', [], 8, shard, { check: true });
      expect(part.checked).toEqual(sampled('send-mid-turn', 8, shard));
      shards.push(...part.checked);
    }
    expect(shards.sort((a, b) => a - b)).toEqual(one.checked);
  }, 300_000);

  it('are only runs the campaign consumed, and the failure is shrunk as without the check', async () => {
    const checked = await campaign('send-mid-turn', ['send-flag'], 20, wholeCampaign, { check: true });
    const plain = await campaign('send-mid-turn', ['send-flag'], 20, wholeCampaign, { check: false });
    const failure = checked.outcome.failure;
    expect(failure).toBeDefined();
    const failingRun = (failure?.run ?? 0) - 1;
    const sample = sampled('send-mid-turn', 20, wholeCampaign);
    expect(checked.checked).toEqual(sample.filter((run) => run <= failingRun));
    // The failing run is checked; the sampled runs after it are not (the campaign never did them).
    expect(checked.checked).toContain(failingRun);
    expect(sample.filter((run) => run > failingRun).length).toBeGreaterThan(0);
    expect(checked.determinism).toEqual([{ checked: checked.checked.length, mismatch: undefined }]);
    expect({ ...failure, result: undefined }).toEqual({ ...plain.outcome.failure, result: undefined });
    expect(checked.outcome.runs).toBe(plain.outcome.runs);
    failure?.result.sim.dispose();
    plain.outcome.failure?.result.sim.dispose();
  }, 300_000);

  it('two traces of one run are compared event by event: the first index where they differ, with both events', () => {
    const event = (index: number, timeMs: number) => ({ index, timeMs, kind: 'fault' as const, fields: { kind: 'x' } });
    const same = { hash: 'aa', events: [event(0, 1), event(1, 2)] };
    expect(compareTraces([same, same, same])).toBeUndefined();
    const other = { hash: 'bb', events: [event(0, 1), event(1, 3), event(2, 4)] };
    expect(compareTraces([same, same, other])).toEqual({ hashes: ['aa', 'aa', 'bb'], firstDivergence: { index: 1, between: [0, 2], a: event(1, 2), b: event(1, 3) } });
    const longer = { hash: 'cc', events: [event(0, 1), event(1, 2), event(2, 9)] };
    expect(compareTraces([same, longer, same])?.firstDivergence).toEqual({ index: 2, between: [0, 1], a: null, b: event(2, 9) });
  });
});
