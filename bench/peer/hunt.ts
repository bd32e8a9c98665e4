// The peer's figures per bug: the peer property (bench/peer/property.ts) run as one fast-check campaign per seed,
// each stopping at its first failure or after its run budget; medians over the seeds, or "not found in N runs".
// The same property on the fixed model (every bug off) is run too: a failure there is a false alarm of the peer.
import type { SqlJsStatic } from 'sql.js';
import type { BugId } from '../../src/index.ts';
import { medianFound, round } from '../stats.ts';
import { type PeerCampaign, peerCampaign } from './property.ts';

export interface PeerFigures {
  campaigns: number;
  found: number;
  runsBudget: number;
  /** Medians over the campaigns; null when more than half found nothing. */
  runsToFirstFailure: number | null;
  wallMsToFirstFailure: number | null;
  /** "found in a median of N runs" or "not found in N runs" (per campaign). */
  verdict: string;
  failures: string[];
  samples: PeerCampaign[];
}

export async function peerHunt(bugs: readonly BugId[], seeds: readonly number[], runsBudget: number, sql: SqlJsStatic): Promise<PeerFigures> {
  const samples: PeerCampaign[] = [];
  for (const seed of seeds) samples.push(await peerCampaign(bugs, seed, runsBudget, sql));
  const found = samples.filter((sample) => sample.found);
  const runs = medianFound(samples.map((sample) => (sample.found ? sample.runs : undefined)));
  const wallMs = medianFound(samples.map((sample) => (sample.found ? sample.wallMs : undefined)));
  return {
    campaigns: samples.length,
    found: found.length,
    runsBudget,
    runsToFirstFailure: runs === undefined ? null : round(runs, 1),
    wallMsToFirstFailure: wallMs === undefined ? null : round(wallMs),
    verdict: runs === undefined ? `not found in ${runsBudget} runs` : `found in a median of ${round(runs, 1)} runs`,
    failures: [...new Set(found.map((sample) => (sample.failure ?? '').replace(/"[^"]*"/g, '"…"').replace(/turn \S+/g, 'turn …').replace(/(run|m)-?\d+/g, '$1N')))].sort(),
    samples,
  };
}
