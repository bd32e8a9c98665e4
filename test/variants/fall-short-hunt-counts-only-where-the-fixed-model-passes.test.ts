// bench/fall-short.ts, the differential campaign behind docs/MODEL.md's "Where the seeds' fixes fall short": a run
// counts only when the variant fails and the baseline passes the same plan; a run failing on both is listed apart,
// the first run that counts is shrunk to a seed string that replays that way, and a pattern narrows what counts.
import { describe, expect, it } from 'vitest';
import { fallShort } from '../../bench/fall-short.ts';
import { reproduce } from '../../lib/index.ts';
import { findScenario, type Scenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';

const sql = await loadSqlJs();
const execReplay = findScenario('exec-replay') as Scenario;
const budget = { scenario: execReplay, campaignSeed: 1, runs: 12, shrinkRunsMax: 8 };

describe('the fall-short hunt', () => {
  it('reports the first run that fails with the variant and passes on the fixed model, shrunk to a replayable seed', async () => {
    const report = await fallShort({ ...budget, variant: ['exec-dedupe-memory'] }, sql);
    expect(report.variantOnly).toHaveLength(1);
    expect(report.variantOnly[0]?.baseline).toEqual([]);
    const seedString = report.shrunk?.seedString as string;
    expect((await reproduce(seedString)).result.verdict).toBe('fail');
    expect((await reproduce(seedString, { bugs: [] })).result.verdict).toBe('pass');
  }, 120_000);

  it('lists a run that fails on the baseline as well apart, and never reports it as the fix falling short', async () => {
    // The sabotage: the baseline carries the same bug, so every failure of the variant is shared.
    const report = await fallShort({ ...budget, variant: ['exec-replay'], baseline: ['exec-replay'], all: true }, sql);
    expect(report.shared.length).toBeGreaterThan(0);
    expect(report.variantOnly).toEqual([]);
    expect(report.shrunk).toBeUndefined();
    // The same runs against the fixed model count.
    const againstFixed = await fallShort({ ...budget, variant: ['exec-replay'], all: true }, sql);
    expect(againstFixed.variantOnly.map((failed) => failed.run)).toEqual(report.shared.map((failed) => failed.run));
  }, 120_000);

  it('counts only the failures whose message matches the pattern', async () => {
    const report = await fallShort({ ...budget, variant: ['exec-dedupe-memory'], match: /no violation says this/, all: true }, sql);
    expect(report.variantOnly).toEqual([]);
    expect(report.shared).toEqual([]);
    expect(report.runs).toBe(budget.runs);
  }, 120_000);
});
