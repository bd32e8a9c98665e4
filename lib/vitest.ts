// gatesim/vitest: fuzz a scenario as a vitest test. On failure the test prints the seed string first and fails with
// the violated invariant and a timeline, as @fast-check/vitest does for properties; `npx gatesim repro <seed>` (or
// `reproIt`) replays the shrunk counterexample exactly.
import { expect, it } from 'vitest';
import type { Scenario } from '../scenarios/index.ts';
import { shrinkText } from '../sim/cli/report.ts';
import { reproduceHint } from '../sim/cli/seed-string.ts';
import { fuzz, type FuzzOptions, reproduce, type ReproduceOptions } from './run.ts';

/** Options of {@link fuzzIt}: a scenario (by name or the registered object) and the campaign's options. */
export interface FuzzItOptions extends FuzzOptions {
  scenario: string | Scenario;
  /** The test's timeout in wall milliseconds (default 120 000: a run takes tens of milliseconds, shrinking more). */
  timeoutMs?: number;
}

type TestFunction = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;

/**
 * The body of {@link fuzzIt}, for any test runner: fuzz the scenario and, on failure, write the seed string to
 * stderr first and throw an assertion error whose message starts with it, then names the violation and a timeline.
 */
export async function assertFuzzPasses(options: FuzzItOptions): Promise<void> {
  const report = await fuzz(options.scenario, options);
  const failure = report.failure;
  if (failure === undefined) return;
  const first = failure.violations.find((violation) => violation.invariant === failure.invariant) ?? failure.violations[0];
  process.stderr.write(`gatesim seed ${failure.seed}\n  reproduce: ${reproduceHint(failure.seed)}\n`);
  const headline = `${failure.invariant}${first === undefined ? '' : ` (${first.class}): ${first.message}`}`;
  expect.fail(`seed ${failure.seed}\n${headline}\nfound at run ${failure.run} of campaign seed ${report.campaignSeed}, ${shrinkText(failure)}\n\n${failure.report}`);
}

function defineFuzz(test: TestFunction): (name: string, options: FuzzItOptions) => void {
  return (name, options) => test(name, () => assertFuzzPasses(options), options.timeoutMs ?? 120_000);
}

/**
 * A vitest test that fuzzes a scenario and fails, seed string first, with the first violation of the shrunk
 * counterexample. `fuzzIt.only` and `fuzzIt.skip` work as vitest's.
 */
export const fuzzIt = Object.assign(defineFuzz(it), { only: defineFuzz(it.only), skip: defineFuzz(it.skip) });

/** Options of {@link reproIt}. */
export interface ReproItOptions extends ReproduceOptions {
  /** What the replay must give: `pass` (a regression test after a fix, the default) or `fail`. */
  verdict?: 'pass' | 'fail';
  /** The test's timeout in wall milliseconds (default 60 000). */
  timeoutMs?: number;
}

/** A vitest test that replays one seed string and expects its verdict (a pinned regression test). */
export function reproIt(name: string, seed: string, options: ReproItOptions = {}): void {
  it(
    name,
    async () => {
      const run = await reproduce(seed, options);
      const wanted = options.verdict ?? 'pass';
      if (run.result.verdict !== wanted) expect.fail(`seed ${run.seed}: expected ${wanted}, got ${run.result.verdict}\n\n${run.report}`);
    },
    options.timeoutMs ?? 60_000,
  );
}
