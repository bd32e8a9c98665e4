// A shrink shows its progress as the campaign does (progress.ts): off a terminal a plain line on stderr at most every
// few seconds, with the runs tried so far and the size of the plan it is at (its last failing plan: workload steps + faults).
// The driver hears every run of the shrink, the same on worker threads as on one, and `fuzz` shows it on stderr only
// (a fake clock drives the lines here: one that moves a second each time it is read).
import { describe, expect, it, vi } from 'vitest';
import { findScenario, scenarios } from '../../scenarios/index.ts';
import { runSeed, wholeCampaign } from '../../sim/cli/campaign.ts';
import { fuzzScenario } from '../../sim/cli/fuzz.ts';
import { fuzzCommand } from '../../sim/cli/fuzz-command.ts';
import { planSize, type ShrinkProgress } from '../../sim/cli/fuzz-task.ts';
import { type Executor, poolExecutor } from '../../sim/cli/pool.ts';
import { planSizeText, plainLineEveryMs, startProgress } from '../../sim/cli/progress.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { generateSpec } from '../../sim/run/generate.ts';

const clock = vi.hoisted(() => ({ ticking: false, now: 0 }));

vi.mock('../../sim/cli/real.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../sim/cli/real.ts')>();
  return { ...original, wallNowMs: () => (clock.ticking ? (clock.now += 1_000) : original.wallNowMs()) };
});

describe('the progress of a shrink', () => {
  it('off a terminal, writes a plain line at most every few seconds: runs tried and the plan size', () => {
    let now = 0;
    const lines: string[] = [];
    const progress = startProgress({ scenarios: 1, runsPerScenario: 20, seconds: undefined }, false, (line) => lines.push(line), () => now);
    now = 60_000;
    const shrinking = progress.shrinking('chaos', 300);
    for (let run = 0; run <= 12; run++) {
      now += 1_000;
      shrinking({ runs: run, plan: { workload: 12 - run, faults: run < 10 ? 2 : 1 } });
    }
    progress.stop();
    expect(lines).toEqual([
      `fuzz: shrinking chaos: 4/300 runs tried, plan now 8 workload steps + 2 faults, ${(plainLineEveryMs / 1_000).toFixed(1)}s elapsed`,
      'fuzz: shrinking chaos: 9/300 runs tried, plan now 3 workload steps + 2 faults, 10.0s elapsed',
    ]);
    expect(planSizeText({ workload: 1, faults: 1 })).toBe('1 workload step + 1 fault');
    expect(planSizeText({ workload: 0, faults: 0 })).toBe('0 workload steps + 0 faults');
  });

  it('the driver hears every run of the shrink, ending at the shrunk plan, the same on worker threads', async () => {
    // exec-replay with its bug on fails at run 7 of campaign seed 1 and shrinks a plan of 7 workload steps and 3 faults.
    const scenario = findScenario('exec-replay');
    if (scenario === undefined) throw new Error('no exec-replay scenario');
    const sql = await loadSqlJs();
    const bugs = ['exec-replay' as const];
    const shrinkOn = async (executor?: Executor): Promise<{ heard: ShrinkProgress[]; shrinkRuns: number; shrunk: ShrinkProgress['plan']; run: number }> => {
      const heard: ShrinkProgress[] = [];
      const extras = { onShrinkProgress: (progress: ShrinkProgress) => heard.push(progress), ...(executor === undefined ? {} : { executor }) };
      const outcome = await fuzzScenario(scenario, scenarios.indexOf(scenario), bugs, 1, { runs: 20, shard: wholeCampaign }, sql, () => {}, extras);
      const failure = outcome.failure;
      if (failure === undefined) throw new Error('exec-replay with its bug did not fail');
      failure.result.sim.dispose();
      return { heard, shrinkRuns: failure.shrinkRuns, shrunk: planSize(failure.result.spec.plan), run: failure.run };
    };
    const here = await shrinkOn();
    expect(here.heard.map((progress) => progress.runs)).toEqual(Array.from({ length: here.shrinkRuns + 1 }, (_, run) => run));
    // The first run is the failing run itself, at its full size; the last size heard is the shrunk plan's.
    const failing = generateSpec(scenario, bugs, runSeed(1, scenarios.indexOf(scenario), here.run - 1), undefined).plan;
    expect(here.heard[0]?.plan).toEqual(planSize(failing));
    expect(here.heard.at(-1)?.plan).toEqual(here.shrunk);
    // The size heard is the plan the shrink is at, never a passing candidate's (smaller than the plan it came from,
    // and after it the next candidate's plan comes back up): in this shrink it never grows.
    const sizes = here.heard.map((progress) => progress.plan.workload + progress.plan.faults);
    for (const [index, size] of sizes.entries()) expect(size, `run ${index}`).toBeLessThanOrEqual(sizes[index - 1] ?? size);
    expect(here.shrunk.workload + here.shrunk.faults).toBeLessThan(failing.workload.length + failing.faults.length);
    const pool = poolExecutor(2);
    try {
      expect(await shrinkOn(pool)).toEqual(here);
    } finally {
      await pool.close();
    }
  }, 300_000);

  it('fuzz prints it on stderr, and stdout keeps only the JSON', async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
    clock.ticking = true;
    let code: number;
    try {
      code = await fuzzCommand({ scenario: 'send-mid-turn', bugs: ['send-flag'], runs: 20, seed: 3, json: true });
    } finally {
      clock.ticking = false;
      out.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(1);
    expect(stdout).toHaveLength(1);
    const json = JSON.parse(stdout[0] ?? '') as { failures: { shrinkRuns: number }[] };
    const shrinkRuns = json.failures[0]?.shrinkRuns ?? 0;
    const lines = stderr.join('').split('\n').filter((line) => line.startsWith('fuzz: shrinking'));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line).toMatch(/^fuzz: shrinking send-mid-turn: \d+\/300 runs tried, plan now \d+ workload steps? \+ \d+ faults?, \d+\.\ds elapsed$/);
    const tried = lines.map((line) => Number(/: (\d+)\/300/.exec(line)?.[1]));
    expect(tried).toEqual([...tried].sort((a, b) => a - b));
    expect(tried.at(-1)).toBeLessThanOrEqual(shrinkRuns);
  }, 120_000);
});
