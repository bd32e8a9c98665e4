// --workers: a campaign on worker threads finds the same failures, with the same seed strings, as on one worker,
// and its runs agree one by one with runs done in this thread. Worker threads load TypeScript through tsx both when
// started from the command line and when started from inside a test process (which has no tsx flag of its own).
import { describe, expect, it } from 'vitest';
import { scenarios } from '../../scenarios/index.ts';
import { runSeed } from '../../sim/cli/campaign.ts';
import type { RunReport, ShrinkReport } from '../../sim/cli/fuzz-task.ts';
import { inlineExecutor, poolExecutor } from '../../sim/cli/pool.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { cli, type FuzzJson } from './support.ts';

describe('--workers', () => {
  it('fuzz --scenario send-mid-turn --bugs send-flag gives the same failures and seed strings on 1 and 2 workers', () => {
    const args = ['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '20', '--seed', '3', '--json'];
    const one = cli([...args, '--workers', '1']);
    const two = cli([...args, '--workers', '2']);
    expect(one.status).toBe(1);
    expect(two.status).toBe(1);
    const [a, b] = [JSON.parse(one.stdout) as FuzzJson & Record<string, unknown>, JSON.parse(two.stdout) as FuzzJson & Record<string, unknown>];
    expect(a.failures).toHaveLength(1);
    expect(a.failures[0]?.seed).toMatch(/^gs2\.send-mid-turn\.send-flag\./);
    expect({ ...b, wallMs: 0 }).toEqual({ ...a, wallMs: 0 });
  }, 300_000);

  it('a pool started from a test process (no tsx flag) answers run and shrink tasks as this thread does', async () => {
    const sql = await loadSqlJs();
    const inline = inlineExecutor(sql);
    const pool = poolExecutor(2);
    try {
      const scenario = scenarios[1];
      if (scenario === undefined) throw new Error('no scenario');
      const tasks = [0, 1, 2, 3].map((run) => ({ kind: 'run' as const, scenario: scenario.name, bugs: ['send-flag' as const], seed: runSeed(3, 1, run) }));
      const here: RunReport[] = [];
      for (const task of tasks) here.push(await inline.run(task));
      const there = await Promise.all(tasks.map((task) => pool.run(task)));
      expect(there).toEqual(here);
      const failing = tasks[here.findIndex((report) => report.fails)];
      expect(failing, 'one of the first runs fails with send-flag on').toBeDefined();
      if (failing === undefined) return;
      const shrinkHere: ShrinkReport = await inline.shrink({ ...failing, kind: 'shrink' });
      const shrinkThere: ShrinkReport = await pool.shrink({ ...failing, kind: 'shrink' });
      expect(shrinkThere).toEqual(shrinkHere);
    } finally {
      await pool.close();
    }
  }, 300_000);
});
