// `fuzz --shrink-runs <n>` sets each failure's shrink budget: 0 reports the failing run as drawn (its seed string the
// unshrunk plan's, which fails on replay), a small budget stops there, and a value that is not a whole number is
// refused at once.
import { describe, expect, it } from 'vitest';
import { cli } from './support.ts';

interface CampaignJson {
  failures: { seed: string; run: number; shrinkRuns: number; shrinkComplete: boolean; shrinkRunsMax: number }[];
}

const campaign = ['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '30', '--seed', '1'];

describe('fuzz --shrink-runs', () => {
  it('0 reports the failing run as drawn, and its seed string replays the failure', () => {
    const text = cli([...campaign, '--shrink-runs', '0']);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain('found at run 1 (no-lost-reply, correctness), not shrunk (--shrink-runs 0): the plan as drawn');
    const parsed = JSON.parse(cli([...campaign, '--shrink-runs', '0', '--json']).stdout) as CampaignJson;
    const [failure] = parsed.failures;
    expect(failure).toMatchObject({ run: 1, shrinkRuns: 0, shrinkComplete: false, shrinkRunsMax: 0 });
    const replayed = cli(['repro', failure?.seed as string, '--json']);
    expect(replayed.status).toBe(1);
    // The default budget shrinks the same run to another, smaller plan.
    const shrunk = JSON.parse(cli([...campaign, '--json']).stdout) as CampaignJson;
    expect(shrunk.failures[0]?.shrinkRunsMax).toBe(300);
    expect(shrunk.failures[0]?.seed).not.toBe(failure?.seed);
  }, 120_000);

  it.each(['-1', '1.5', 'abc', ''])('%j is refused in one line, exit 2', (value) => {
    const result = cli([...campaign, '--shrink-runs', value]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--shrink-runs/);
    expect(result.stdout).toBe('');
  });
});
