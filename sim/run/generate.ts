// From (scenario, fast-check seed, shrink path) to a RunSpec, deterministically: the same inputs give the same plan
// in every process. A path replays fast-check's shrinking to the exact counterexample it reported.
import fc from 'fast-check';
import type { BugId } from '../../src/index.ts';
import type { Scenario } from '../../scenarios/index.ts';
import { assert } from '../kernel/assert.ts';
import type { Plan, RunSpec } from './plan.ts';

/** What a scenario's property draws: the plan and the simulation seed (the latter never shrinks). */
export function runArbitrary(scenario: Scenario): fc.Arbitrary<[Plan, number]> {
  return fc.tuple(scenario.plan, fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 })));
}

export function toSpec(scenario: Scenario, bugs: BugId[], value: [Plan, number]): RunSpec {
  return { scenario: scenario.name, bugs, seed: value[1], plan: value[0] };
}

/**
 * The run a scenario gives for a fast-check seed (and shrink path): the same inputs give the same plan in every
 * process.
 */
export function generateSpec(scenario: Scenario, bugs: BugId[], seed: number, path: string | undefined): RunSpec {
  let value: [Plan, number] | undefined;
  const property = fc.property(runArbitrary(scenario), (drawn) => {
    value = drawn;
    return false;
  });
  fc.check(property, { seed, numRuns: 1, endOnFailure: true, ...(path === undefined ? {} : { path }) });
  assert(value !== undefined, `fast-check produced no plan for ${scenario.name} seed ${seed} path ${path ?? 'r'}`);
  return toSpec(scenario, bugs, value);
}
