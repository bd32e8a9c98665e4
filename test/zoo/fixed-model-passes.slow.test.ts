// With every bug off, each scenario passes a fixed sample of 500 runs (the nightly campaign runs far more), so a
// violation in the zoo above comes from the bug, not from the bench; but for the open failures docs/MODEL.md records.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../scenarios/index.ts';
import { hunt } from './support.ts';

const runs = 500;

/**
 * Failures of the fixed model that docs/MODEL.md records as open (section "Chaos draws every shape": found when chaos
 * began to draw compaction, the same verdict on the model before issue 44), each by its scenario and seed string. Such
 * a failure ends its sample early, so the runs after it go unchecked here until it is settled (issue 47's attribution);
 * any other failure fails the test, and so does a listed one that docs/MODEL.md no longer names.
 */
const knownOpen: Readonly<Record<string, string>> = {
  chaos: 'gs2.chaos.none.925487472.061E22112144122f120310101130D40020010D51002353424c23429637256c632D5441734.0_1_0-a8dd6b.97dc13c2',
};
const modelMd = readFileSync(new URL('../../docs/MODEL.md', import.meta.url), 'utf8');

describe('the fixed model', () => {
  it.each(scenarioNames)(`passes %s for ${runs} runs`, async (name) => {
    const outcome = await hunt(name, [], runs);
    const failure = outcome.failure;
    const open = knownOpen[name];
    if (failure !== undefined && failure.seed === open) {
      expect(modelMd, 'docs/MODEL.md names the open failure').toContain(open);
      return;
    }
    expect(failure === undefined ? 'no failure' : `${failure.invariant}: ${failure.violations[0]?.message ?? ''} (repro ${failure.seed})`).toBe('no failure');
    expect(outcome.runs).toBe(runs);
  }, 600_000);
});
