// `npm run bench -- --json` reports issue 25's figures (campaign speed) under stable keys: `issue25` gathers them from
// the sections that measured them, and a section that did not run leaves its figure null rather than absent. Only the
// presence and shape of the keys are checked, never a timing (speed targets belong to the bench). A slow test: it
// starts a pool of two worker threads and runs a short fuzz --all campaign through the fuzz driver.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../scenarios/index.ts';

describe('npm run bench -- --json', () => {
  it('reports the issue 25 figures under stable keys', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--json', '--quick', '--only', 'campaign'], { encoding: 'utf8', timeout: 600_000 });
    expect(out.status, out.stderr).toBe(0);
    const figures = JSON.parse(out.stdout) as { campaign: Record<string, unknown>; issue25: Record<string, unknown> };
    expect(figures.campaign.workers).toBe(2);
    // The quick budget's 4 runs per built-in scenario.
    expect(figures.campaign.runs).toBe(4 * scenarioNames.length);
    expect(figures.campaign.failures).toEqual([]);
    expect(Object.keys(figures.issue25).sort()).toEqual(
      [
        'chaosRunsPerCpuSecOneCore',
        'chaosRunsPerSecOneCore',
        'fuzzAllLoadAverage',
        'fuzzAllMillionRunsHoursOnTwoCores',
        'fuzzAllMillionRunsHoursOnTwoQuietCores',
        'openclawRatioToModel',
        'peakRssMb',
        'peakRssRuns',
        'targets',
        'twoWorkersChaosRuns',
        'twoWorkersLoadAverage',
        'twoWorkersSpeedup',
      ].sort(),
    );
    expect(typeof figures.issue25.fuzzAllMillionRunsHoursOnTwoCores).toBe('number');
    expect(typeof figures.issue25.fuzzAllMillionRunsHoursOnTwoQuietCores).toBe('number');
    expect(figures.issue25.chaosRunsPerSecOneCore).toBeNull();
    expect(figures.issue25.twoWorkersSpeedup).toBeNull();
    expect(figures.issue25.peakRssMb).toBeNull();
    expect(figures.issue25.openclawRatioToModel).toBeNull();
  }, 600_000);
});
