// Sharding: the shards of one campaign (same seed) do disjoint runs whose union is exactly the unsharded campaign,
// whatever the number of shards; a shard needs --seed, and a shard with no runs to do is refused.
import { describe, expect, it } from 'vitest';
import { scenarios } from '../../scenarios/index.ts';
import { campaignRuns, type Shard, shardRunCount } from '../../sim/cli/campaign.ts';
import { fuzzScenario } from '../../sim/cli/fuzz.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { cli, type FuzzJson } from './support.ts';

type Key = string;

/** The (scenario, run index, seed) of every run the fuzz driver actually starts for a shard. */
async function runsStarted(names: string[], runs: number, shard: Shard, campaignSeed: number): Promise<Key[]> {
  const sql = await loadSqlJs();
  const started: Key[] = [];
  for (const name of names) {
    const scenario = scenarios.find((candidate) => candidate.name === name);
    if (scenario === undefined) throw new Error(name);
    const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), [], campaignSeed, { runs, shard }, sql, () => {}, {
      onRunStarted: (run) => started.push(`${run.scenario}/${run.run}/${run.seed}`),
    });
    expect(outcome.failure).toBeUndefined();
  }
  return started;
}

describe('shards of one campaign', () => {
  const names = ['exec-replay', 'orphan-leaf'];
  const runs = 7;

  it('are disjoint and their union is exactly the unsharded campaign (2 and 3 shards)', async () => {
    const whole = await runsStarted(names, runs, { index: 0, count: 1 }, 11);
    expect(whole).toHaveLength(names.length * runs);
    expect(new Set(whole).size).toBe(whole.length);
    for (const count of [2, 3]) {
      const parts: Key[] = [];
      for (let index = 0; index < count; index++) parts.push(...(await runsStarted(names, runs, { index, count }, 11)));
      expect(parts, `${count} shards`).toHaveLength(whole.length);
      expect(new Set(parts).size, `${count} shards overlap`).toBe(parts.length);
      expect([...parts].sort()).toEqual([...whole].sort());
    }
  }, 300_000);

  it('the planned runs agree with the runs started, and a campaign with another seed differs', async () => {
    const started = await runsStarted(['exec-replay'], 5, { index: 1, count: 2 }, 11);
    const planned = campaignRuns(11, [{ name: 'exec-replay', index: 0 }], 5, { index: 1, count: 2 }).map((run) => `${run.scenario}/${run.run}/${run.seed}`);
    expect(started).toEqual(planned);
    const other = campaignRuns(12, [{ name: 'exec-replay', index: 0 }], 5, { index: 1, count: 2 }).map((run) => `${run.scenario}/${run.run}/${run.seed}`);
    expect(other).not.toEqual(planned);
  }, 120_000);

  it('count their runs so that the shards add up to the campaign', () => {
    for (const runs of [1, 2, 7, 40, 200]) {
      for (const count of [1, 2, 3, 8]) {
        let sum = 0;
        for (let index = 0; index < count; index++) sum += shardRunCount(runs, { index, count });
        expect(sum, `${runs} runs in ${count} shards`).toBe(runs);
      }
    }
  });
});

describe('sharding on the command line', () => {
  it('fuzz --all --runs 2 in 2 shards does as many runs as the whole campaign', () => {
    const whole = JSON.parse(cli(['fuzz', '--all', '--runs', '2', '--seed', '2', '--json']).stdout) as FuzzJson;
    const first = JSON.parse(cli(['fuzz', '--all', '--runs', '2', '--seed', '2', '--shard', '1/2', '--json']).stdout) as FuzzJson;
    const second = JSON.parse(cli(['fuzz', '--all', '--runs', '2', '--seed', '2', '--shard', '2/2', '--json']).stdout) as FuzzJson;
    // Two runs of each built-in scenario (the count grows as scenarios are added), half in each shard.
    expect(whole.runs).toBe(2 * scenarios.length);
    expect(first.runs + second.runs).toBe(whole.runs);
    expect(first.runs).toBe(scenarios.length);
  }, 300_000);

  it.each([
    ['a shard without --seed', ['fuzz', '--all', '--runs', '40', '--shard', '2/2'], /--shard needs --seed/],
    ['an empty shard', ['fuzz', '--all', '--runs', '1', '--shard', '2/2', '--seed', '1'], /shard 2\/2 has no runs to do/],
    ['a shard past the last', ['fuzz', '--all', '--runs', '40', '--shard', '5/3', '--seed', '1'], /shard must be <i>\/<n> with 1 <= i <= n, got "5\/3"/],
  ])('%s is refused with exit 2 and one line', (_name, args, message) => {
    const result = cli(args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
