// `fuzz --past-documented`: with real code, a run that fails only with findings docs/MODEL.md documents about that
// code is listed with its unshrunk seed string and the campaign goes on; a run with a violation that matches no
// documented finding still stops the campaign and is shrunk; without real code the option is refused at once.
import { describe, expect, it } from 'vitest';
import { reproduce } from '../../lib/index.ts';
import { findScenario, scenarios } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { wholeCampaign } from '../../sim/cli/campaign.ts';
import { fuzzScenario } from '../../sim/cli/fuzz.ts';
import { documentedViolations } from '../../sim/cli/fuzz-task.ts';
import { parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawMissing } from '../real/openclaw-support.ts';
import { cli } from './support.ts';

describe('fuzz --past-documented', () => {
  it('is refused without real code, before anything runs', () => {
    const result = cli(['fuzz', '--scenario', 'exec-replay', '--runs', '5', '--seed', '1', '--past-documented']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--past-documented needs real code (--openclaw or --session-manager pi)');
    expect(result.stdout).toBe('');
  });
});

interface CampaignJson {
  runs: number;
  failures: unknown[];
  firstFailureRun: number | null;
  scenarios: { scenario: string; runs: number; documentedRuns: number }[];
  documented: { scenario: string; run: number; seed: string; findings: { invariant: string; section: string }[] }[];
}

describe.skipIf(openclawMissing('fuzz --past-documented with OpenClaw 2026.4.24'))('fuzz --past-documented with OpenClaw 2026.4.24', () => {
  // exec-replay at campaign seed 1 with 2026.4.24's node events: run 7 doubles a command's event (docs/MODEL.md
  // "Node exec events, real"), the first failing run of the campaign.
  it('lists a run failing with a documented finding, unshrunk, goes on to the last run, and exits 0', async () => {
    const result = cli(['fuzz', '--scenario', 'exec-replay', '--openclaw', '2026.4.24:se,hw,ne', '--runs', '8', '--seed', '1', '--past-documented', '--json'], {}, 300_000);
    expect(result.status, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as CampaignJson;
    expect(parsed.runs).toBe(8);
    expect(parsed.failures).toEqual([]);
    expect(parsed.firstFailureRun).toBeNull();
    expect(parsed.scenarios).toEqual([{ scenario: 'exec-replay', runs: 8, firstFailureRun: null, documentedRuns: 1 }]);
    expect(parsed.documented).toHaveLength(1);
    const [past] = parsed.documented;
    expect(past).toMatchObject({ scenario: 'exec-replay', run: 7, findings: [{ invariant: 'no-double-ingestion', section: 'Node exec events, real' }] });
    // The seed string replays the run as drawn: it fails with the documented finding and nothing else.
    const { result: replayed } = await reproduce(past?.seed as string);
    expect(replayed.verdict).toBe('fail');
    expect(documentedViolations(replayed, undefined)).toEqual([{ invariant: 'no-double-ingestion', section: 'Node exec events, real' }]);
    replayed.sim.dispose();
  }, 600_000);

  it('stops at a run whose violation matches no documented finding, and shrinks it', async () => {
    // send-flag is a seed bug of gatesim's model, not of the release: its duplicate is new whatever real code ran.
    const name = 'send-mid-turn';
    const outcome = await fuzzScenario(findScenario(name) as (typeof scenarios)[number], scenarios.findIndex((one) => one.name === name), ['send-flag'], 1, { runs: 30, openclaw: parseOpenclawChoice('2026.4.24:se'), pastDocumented: true, shrinkRunsMax: 5, shard: wholeCampaign }, await loadSqlJs());
    expect(outcome.failure, 'send-flag is found with the release system-event queue in place').toBeDefined();
    expect(outcome.documented).toEqual([]);
    expect(documentedViolations(outcome.failure?.result as NonNullable<typeof outcome.failure>['result'], undefined)).toBeUndefined();
    outcome.failure?.result.sim.dispose();
  }, 600_000);
});
