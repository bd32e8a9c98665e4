// With every bug off, each scenario passes a fixed sample of 500 runs (the nightly campaign runs far more), so a
// violation in the zoo above comes from the bug, not from the bench.
import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../scenarios/index.ts';
import { hunt } from './support.ts';

const runs = 500;

describe('the fixed model', () => {
  it.each(scenarioNames)(`passes %s for ${runs} runs`, async (name) => {
    const outcome = await hunt(name, [], runs);
    const failure = outcome.failure;
    expect(failure === undefined ? 'no failure' : `${failure.invariant}: ${failure.violations[0]?.message ?? ''} (repro ${failure.seed})`).toBe('no failure');
    expect(outcome.runs).toBe(runs);
  }, 600_000);
});
