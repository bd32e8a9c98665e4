// Seed 003 with the real pi SessionManager (sim/real/orphan-experiment.ts, which opens the file as OpenClaw's run
// attempt does: repair, open, prepareSessionManagerForRun): the buggy orphan repair (only the in-memory leaf moves)
// leaves every orphan in the file, so the file gains long runs of consecutive user lines; assistant entries a backup
// holds do drop off the active branch, but through other mechanisms. Without a second writer: a kill tears pi's
// unsynced append just short of its newline (the JSON is whole, so the load sees an entry), pi's next append (never
// checking for a final newline) lands on the same line, and the next run's repair step drops that now malformed
// line, with both entries in it, while the second entry's child survives on a line of its own: the parent chain
// breaks, and everything before the break leaves the active branch. With a second writer (the gateway's mirror
// append) the chain breaks far more often, fixed repair or not: the gateway appends under an entry it read from the
// page cache, the runner that wrote that entry is killed before a writeback, and the child outlives its parent. Both
// breaks need the simulation's crash rule (a kill drops the writer's unsynced writes), to which pi, never calling
// fsync, is fully exposed. Over orphan-0..999 (after the experiment took OpenClaw's prepare step): the torn-line
// break without a mirror writer in 8 seeds with the buggy repair and none with the fixed one; runs of three user
// entries on the active branch with the mirror writer in 3 seeds buggy and 1 fixed (orphan-551, both).
import { describe, expect, it } from 'vitest';
import { runOrphanExperiment } from '../../sim/real/orphan-experiment.ts';
import { piMissing, realPi, sql } from './support.ts';

const sample = Array.from({ length: 40 }, (_, index) => `orphan-${index}`);

describe.skipIf(piMissing)('seed 003 (orphan-leaf) with the real pi SessionManager', () => {
  it('the buggy repair leaves runs of consecutive user lines in the file; the fix mostly does not', async () => {
    let buggyRuns = 0;
    let fixedRuns = 0;
    for (const seed of sample) {
      if ((await runOrphanExperiment(sql, realPi(), seed, 'buggy')).longestUserRunInFile >= 3) buggyRuns++;
      if ((await runOrphanExperiment(sql, realPi(), seed, 'fixed')).longestUserRunInFile >= 3) fixedRuns++;
    }
    expect(buggyRuns).toBeGreaterThan(sample.length / 2);
    expect(fixedRuns).toBeLessThan(buggyRuns / 3);
  });

  it('orphan-101: persisted answers leave the active branch while backups hold them (a torn line broke the chain)', async () => {
    const outcome = await runOrphanExperiment(sql, realPi(), 'orphan-101', 'buggy');
    expect(outcome.lostAssistants).toEqual(['answer 0', 'answer 1', 'answer 10', 'answer 11', 'answer 2', 'answer 4', 'answer 5', 'answer 7', 'answer 8', 'answer 9']);
    expect(outcome.backups).toBeGreaterThan(0);
    expect(outcome.brokenLinks).toBeGreaterThan(0);
    // Not the full symptom: the active branch holds no run of three user entries.
    expect(outcome.longestUserRunOnBranch).toBeLessThan(3);
    expect(await runOrphanExperiment(sql, realPi(), 'orphan-101', 'buggy')).toEqual(outcome);
    // The same plan with the fixed repair keeps every answer.
    expect((await runOrphanExperiment(sql, realPi(), 'orphan-101', 'fixed')).lostAssistants).toEqual([]);
  });

  it('orphan-551 with mirror appends: the full symptom, answers gone and three user entries in a row, with either repair', async () => {
    for (const repair of ['buggy', 'fixed'] as const) {
      const outcome = await runOrphanExperiment(sql, realPi(), 'orphan-551', repair, true);
      expect(outcome.lostAssistants.filter((content) => content.startsWith('answer'))).toEqual(['answer 0', 'answer 1', 'answer 2']);
      expect(outcome.longestUserRunOnBranch).toBe(3);
      expect(outcome.backups).toBeGreaterThan(0);
    }
  });

  it('the mirror writer loses answers with the fixed repair too (orphan-0), so it is not the orphan bug', async () => {
    const outcome = await runOrphanExperiment(sql, realPi(), 'orphan-0', 'fixed', true);
    expect(outcome.lostAssistants.filter((content) => content.startsWith('answer')).length).toBeGreaterThan(5);
    expect(outcome.backups).toBeGreaterThan(0);
    expect(outcome.brokenLinks).toBeGreaterThan(0);
  });
});
