// Shared by the tests that run chaos plans with a pinned OpenClaw release's parts in place of the model's
// (`--openclaw <release>:<parts>`): the run of each plan twice in one process under each release (the same trace hash
// both times), and the command line's `run` then `repro` in fresh processes (the seed string records the parts; the
// same trace hash both times).
import { expect } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { OpenclawGatewayPart } from '../../sim/real/openclaw/choice.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { type RunResult, runSpec } from '../../sim/run/harness.ts';
import type { RunSpec } from '../../sim/run/plan.ts';
import { cli } from '../cli/support.ts';

/** One run of {@link runTwiceUnderEachRelease}: what its `check` is given. */
export interface ReleaseRun {
  release: OpenclawRelease;
  seed: number;
  spec: RunSpec;
  result: RunResult;
  /** `<release> seed <seed>`, for the messages of the checks. */
  label: string;
}

/**
 * Runs the first chaos plan of each seed twice under each release with `parts(release)` in place of the model's,
 * calls `check` on every run (before the run's world is disposed), and expects the two runs of a plan to give one
 * trace hash. Returns that hash by `<release>/<seed>`.
 */
export async function runTwiceUnderEachRelease(
  seeds: readonly number[],
  parts: (release: OpenclawRelease) => OpenclawGatewayPart[],
  check: (run: ReleaseRun) => void,
): Promise<Map<string, string>> {
  const sql = await loadSqlJs();
  const chaos = findScenario('chaos');
  if (chaos === undefined) throw new Error('chaos is built in');
  const hashOf = new Map<string, string>();
  for (const release of openclawReleases) {
    for (const seed of seeds) {
      const spec = generateSpec(chaos, [], seed, undefined);
      const label = `${release} seed ${seed}`;
      const hashes: string[] = [];
      for (let round = 0; round < 2; round++) {
        const result = await runSpec(spec, { sql, openclaw: { release, parts: parts(release) } });
        hashes.push(result.traceHash);
        try {
          check({ release, seed, spec, result, label });
        } finally {
          result.sim.dispose();
        }
      }
      expect(hashes[1], label).toBe(hashes[0]);
      hashOf.set(`${release}/${seed}`, hashes[0] as string);
    }
  }
  return hashOf;
}

/**
 * `gatesim run chaos --seed <seed> --openclaw <release>:<parts> --json`, then `repro` of the seed string it printed, each
 * in a fresh process: the seed string records the release and the parts (`~<codes>` in it), and both give one trace
 * hash, which is returned.
 */
export function runThenRepro(release: OpenclawRelease, seed: number, parts: OpenclawGatewayPart[], codes: string, timeoutMs = 300_000): string {
  const ran = cli(['run', 'chaos', '--seed', String(seed), '--openclaw', `${release}:${parts.join(',')}`, '--json'], {}, timeoutMs);
  expect(ran.status, ran.stderr).toBe(0);
  const json = JSON.parse(ran.stdout) as { seed: string; traceHash: string };
  expect(decodeSeedString(json.seed).openclaw).toEqual({ release, parts });
  expect(json.seed).toContain(`@oc-${release.replace(/\./g, '_')}~${codes}.`);
  const again = cli(['repro', json.seed, '--json'], {}, timeoutMs);
  expect(again.status, again.stderr).toBe(0);
  expect((JSON.parse(again.stdout) as { traceHash: string }).traceHash).toBe(json.traceHash);
  return json.traceHash;
}
