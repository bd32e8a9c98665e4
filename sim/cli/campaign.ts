// A fuzz campaign as a list of runs. Run r (0-based) of scenario s in campaign c draws its plan from fast-check seed
// runSeed(c, s, r) and nothing else, so a run is the same wherever and whenever it is executed: in this process or
// in a worker thread, in the whole campaign or in one shard of it. Shard i of n takes the runs with r mod n = i - 1,
// so the shards of a campaign are disjoint and their union is exactly the unsharded campaign.
import { contentHash } from '../../src/index.ts';
import { assert } from '../kernel/assert.ts';

export interface Shard {
  /** 0-based. */
  index: number;
  count: number;
}

export const wholeCampaign: Shard = { index: 0, count: 1 };

/** The fast-check seed of one run: a hash of (campaign seed, scenario index, run index), from 0 to 2^31 - 1. */
export function runSeed(campaignSeed: number, scenarioIndex: number, run: number): number {
  assert(Number.isInteger(run) && run >= 0, `run index must be a non-negative integer, got ${run}`);
  return Number.parseInt(contentHash(`gatesim-campaign/${campaignSeed}/${scenarioIndex}/${run}`), 16) & 0x7fff_ffff;
}

/** The run indices of one scenario that a shard does, in order; `runs` is per scenario over the whole campaign. */
export function* shardRuns(runs: number | undefined, shard: Shard): Generator<number> {
  assert(shard.count >= 1 && shard.index >= 0 && shard.index < shard.count, `bad shard ${shard.index}/${shard.count}`);
  const end = runs ?? Number.POSITIVE_INFINITY;
  for (let run = shard.index; run < end; run += shard.count) yield run;
}

/** How many runs of one scenario a shard does (runs given). */
export function shardRunCount(runs: number, shard: Shard): number {
  return runs <= shard.index ? 0 : Math.ceil((runs - shard.index) / shard.count);
}

export interface CampaignRun {
  scenario: string;
  run: number;
  seed: number;
}

/** Every run a shard of a campaign does, scenario by scenario (what the sharding test compares). */
export function campaignRuns(campaignSeed: number, scenarios: readonly { name: string; index: number }[], runs: number, shard: Shard): CampaignRun[] {
  const out: CampaignRun[] = [];
  for (const scenario of scenarios) {
    for (const run of shardRuns(runs, shard)) out.push({ scenario: scenario.name, run, seed: runSeed(campaignSeed, scenario.index, run) });
  }
  return out;
}
