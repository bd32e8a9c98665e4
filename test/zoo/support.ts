// Shared by the bug-zoo tests: run a campaign in process, and replay a seed string in a fresh process.
import { execFileSync } from 'node:child_process';
import type { BugId } from '../../src/index.ts';
import { findScenario, scenarios } from '../../scenarios/index.ts';
import { fuzzScenario, type ScenarioOutcome } from '../../sim/cli/fuzz.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { childEnv } from '../hermetic-env.ts';

/** Campaign seed used by CI: fixed, so the zoo is reproducible; the nightly campaign varies it. */
export const zooCampaignSeed = 1;

export async function hunt(scenarioName: string, bugs: BugId[], runs: number, invariant?: string): Promise<ScenarioOutcome> {
  const scenario = findScenario(scenarioName);
  if (scenario === undefined) throw new Error(`no scenario ${scenarioName}`);
  const sql = await loadSqlJs();
  return fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, zooCampaignSeed, { runs, shard: { index: 0, count: 1 }, ...(invariant === undefined ? {} : { invariant }) }, sql, () => {});
}

export interface CliRun {
  status: number;
  json: { seed: string; verdict: string; violations: { invariant: string; message: string; step: number }[]; traceHash: string; steps: number; simTimeMs: number };
}

/** `npm run sim -- repro <seed> --json` in a fresh Node process. */
export function reproInFreshProcess(seed: string): CliRun {
  let stdout: string;
  let status = 0;
  try {
    stdout = execFileSync(process.execPath, ['--import', 'tsx', 'sim/cli/main.ts', 'repro', seed, '--json'], { encoding: 'utf8', env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    status = failed.status;
    stdout = failed.stdout;
  }
  return { status, json: JSON.parse(stdout) as CliRun['json'] };
}
