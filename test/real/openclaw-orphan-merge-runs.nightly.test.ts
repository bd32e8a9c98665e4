// `--openclaw <release>:orphan-merge` runs a pinned release's mergeOrphanedTrailingUserPrompt in place of the model's
// merge policy in the runner (sim/real/openclaw/orphan-merge.ts): chaos plans where a run meets another turn's
// unanswered message put their questions to the release's function, a run gives the same trace hash twice in one
// process and in a fresh one (`repro` of its seed string, which records `~om`), and nothing reaches the host.
import { afterEach, describe, expect, it } from 'vitest';
import type { OrphanMergeDecision, OrphanMergeQuestion } from '../../src/index.ts';
import { openclawReleases } from '../../sim/real/openclaw/index.ts';
import { RealOrphanMerge } from '../../sim/real/openclaw/orphan-merge.ts';
import { openclawMissing } from './openclaw-support.ts';
import { runThenRepro, runTwiceUnderEachRelease } from './openclaw-runs.ts';

const missing = openclawMissing('--openclaw orphan-merge run tests');

const decide = RealOrphanMerge.prototype.decide;
afterEach(() => {
  RealOrphanMerge.prototype.decide = decide;
});

/**
 * Chaos plans in which the model's runner folds another turn's message (frozen: the first plans of seeds 19 and 22 on
 * the generator before issue 44, 5 and 12 questions), and a chaos seed for the command line.
 */
const plans = ['chaos-19-before-issue-44', 'chaos-22-before-issue-44'];
const cliSeed = 19;

describe.skipIf(missing)('--openclaw orphan-merge: the release decides in a run', () => {
  it('the release is asked, and a run gives the same trace hash twice in one process, for each release', async () => {
    const asked: { question: OrphanMergeQuestion; decision: OrphanMergeDecision }[] = [];
    RealOrphanMerge.prototype.decide = function (this: RealOrphanMerge, question: OrphanMergeQuestion) {
      const decision = decide.call(this, question);
      asked.push({ question, decision });
      return decision;
    };
    let before = 0;
    await runTwiceUnderEachRelease(plans, () => ['orphan-merge'], ({ result, label }) => {
      expect(asked.length, `${label}: the release's policy was asked`).toBeGreaterThan(before);
      before = asked.length;
      expect(result.verdict, label).toBe('pass');
      // The fixed model around the part: the release's merge policy itself (around 2026.4.24 as released, seed 000's
      // queue and the in-memory exec dedupe would be on too, surroundings.ts).
    }, 'model');
    // Every question was a user run's (chat rows), and the release merged or carried each.
    expect(asked.every(({ decision }) => decision.take !== 'left')).toBe(true);
  }, 600_000);

  it('the seed string records ~om, and repro in a fresh process gives the same trace hash', () => {
    for (const release of openclawReleases) runThenRepro(release, cliSeed, ['orphan-merge'], 'om', { verdict: 'any' });
  }, 600_000);
});
