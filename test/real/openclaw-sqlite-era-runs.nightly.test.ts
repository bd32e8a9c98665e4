// Runs with every part of the SQLite-era releases (a bare `--openclaw 2026.8.1` or `2026.9.6`: system-events,
// heartbeat-wake, node-events, orphan-merge, mirror-append), under Node 24 (test/real/openclaw-node24.ts): a plan gives the same trace hash twice in
// one process (exec-replay seed 1; heartbeat-runs seed 3, where 2026.9.6's wakes part from the model's), and `run` then
// `repro` in fresh processes (each re-run under the workspace's Node 24) give that hash again, the seed string naming
// the release and its parts (`@oc-2026_9_6~se+hw+ne+om+ma`).
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { openclawBarePartsOf } from '../../sim/real/openclaw/choice.ts';
import { openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';
import { runThenRepro, runTwice } from './openclaw-runs.ts';

const missing = sqliteEraMissing();
const plans = [
  { scenario: 'exec-replay', seed: 1 },
  { scenario: 'heartbeat-runs', seed: 3 },
] as const;

describe.skipIf(missing || !node24Here)(`${underNode24} runs with every part of the SQLite-era releases`, () => {
  it('the same trace hash twice in one process, then in a fresh run and a fresh repro', async () => {
    for (const release of openclawSqliteEraReleases) {
      const parts = openclawBarePartsOf(release);
      expect(parts).toEqual(['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge', 'mirror-append']);
      for (const { scenario, seed } of plans) {
        const found = findScenario(scenario);
        if (found === undefined) throw new Error(`${scenario} is built in`);
        const label = `${release} ${scenario} seed ${seed}`;
        const here = await runTwice(generateSpec(found, [], seed, undefined), release, parts, label, (result) => {
          expect(result.verdict, label).toBe('pass');
        });
        const fresh = runThenRepro(release, seed, parts, 'se+hw+ne+om+ma', { scenario });
        expect(fresh, `${label}: a fresh process`).toBe(here);
        process.stderr.write(`${label}: trace hash ${here}\n`);
      }
    }
  }, 900_000);
});

describe.skipIf(missing || node24Here)('the SQLite-era releases on this Node', () => {
  it("run their run blocks under the workspace's Node 24", () => rerunUnderNode24(import.meta.url, 900_000), 960_000);
});
