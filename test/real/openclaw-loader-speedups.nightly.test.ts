// The loader's speed-ups of issue 46 (the plain scope chain of sim/real/openclaw-hooks/compile.mjs, the lazy ajv
// compile of package-loader.mjs) change no run: a chaos plan and the exec-replay plan with every part of each
// JSONL-era release give the same trace hash with them as without them (the loader baseline), and the same hash twice
// with them in one process. What each speed-up keeps of an instance: test/real/openclaw-loader-speedups.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { openclawBarePartsOf } from '../../sim/real/openclaw/choice.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('loader speed-up runs');
const baselineKey = Symbol.for('gatesim.openclaw.loader-baseline');
const holder = globalThis as unknown as Record<symbol, boolean | undefined>;

afterEach(() => {
  holder[baselineKey] = undefined;
});

async function traceHash(release: OpenclawRelease, scenario: string, seed: number, baseline: boolean): Promise<string> {
  const found = findScenario(scenario);
  if (found === undefined) throw new Error(`no scenario ${scenario}`);
  holder[baselineKey] = baseline;
  const result = await runSpec(generateSpec(found, [], seed, undefined), { sql: await loadSqlJs(), openclaw: { release, parts: [...openclawBarePartsOf(release)] } });
  // A run whose real code reached the host throws (RealCodeEscapeError), so each hash is of a clean run.
  const hash = result.traceHash;
  result.sim.dispose();
  return hash;
}

describe.skipIf(missing)("the loader's speed-ups change no run", () => {
  for (const release of openclawReleases) {
    for (const [scenario, seed] of [
      ['chaos', 2],
      ['exec-replay', 11],
    ] as const) {
      it(`${release} ${scenario} seed ${seed}: the same trace hash without them, with them, and with them again`, async () => {
        const without = await traceHash(release, scenario, seed, true);
        const withThem = await traceHash(release, scenario, seed, false);
        const again = await traceHash(release, scenario, seed, false);
        expect(withThem).toBe(without);
        expect(again).toBe(withThem);
      }, 600_000);
    }
  }
});
