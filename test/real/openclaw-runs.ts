// Shared by the tests that run plans with a pinned OpenClaw release's parts in place of the model's
// (`--openclaw <release>:<parts>`): the run of a plan twice in one process (the same trace hash both times), and the
// command line's `run` then `repro` in fresh processes (the seed string records the parts; the same trace hash both
// times).
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
 * Runs `spec` twice in one process with `parts` of `release` in place of the model's, calls `check` on each run
 * (before its world is disposed), expects one trace hash both times, and returns it.
 */
export async function runTwice(
  spec: RunSpec,
  release: OpenclawRelease,
  parts: readonly OpenclawGatewayPart[],
  label: string,
  check: (result: RunResult) => void = () => undefined,
  around?: 'model',
): Promise<string> {
  const sql = await loadSqlJs();
  const hashes: string[] = [];
  for (let round = 0; round < 2; round++) {
    const result = await runSpec(spec, { sql, openclaw: { release, parts: [...parts], ...(around === undefined ? {} : { around }) } });
    hashes.push(result.traceHash);
    try {
      check(result);
    } finally {
      result.sim.dispose();
    }
  }
  expect(hashes[1], label).toBe(hashes[0]);
  return hashes[0] as string;
}

/**
 * Runs the first chaos plan of each seed twice under each release with `parts(release)` in place of the model's
 * ({@link runTwice}), calling `check` on every run. Returns the trace hash by `<release>/<seed>`. With `around:
 * 'model'` the fixed model's defences stay around the parts (a test of a part itself, under the callers gatesim's model
 * gives it) instead of the release's behaviour (sim/real/openclaw/surroundings.ts).
 */
export async function runTwiceUnderEachRelease(
  seeds: readonly number[],
  parts: (release: OpenclawRelease) => OpenclawGatewayPart[],
  check: (run: ReleaseRun) => void,
  around?: 'model',
): Promise<Map<string, string>> {
  const chaos = findScenario('chaos');
  if (chaos === undefined) throw new Error('chaos is built in');
  const hashOf = new Map<string, string>();
  for (const release of openclawReleases) {
    for (const seed of seeds) {
      const spec = generateSpec(chaos, [], seed, undefined);
      const label = `${release} seed ${seed}`;
      hashOf.set(`${release}/${seed}`, await runTwice(spec, release, parts(release), label, (result) => check({ release, seed, spec, result, label }), around));
    }
  }
  return hashOf;
}

/** How {@link runThenRepro} runs: the scenario (chaos by default), each command's time limit, and the verdict it expects. */
export interface RunThenReproOptions {
  scenario?: string;
  timeoutMs?: number;
  /** `pass` (the default): `run` must exit 0; `any`: whatever it gives, `repro` must give the same. */
  verdict?: 'pass' | 'any';
}

/**
 * `gatesim run <scenario> --seed <seed> --openclaw <release>:<parts> --json`, then `repro` of the seed string it printed,
 * each in a fresh process: the seed string records the release and the parts (`~<codes>` in it), and both give one
 * exit status and one trace hash, which is returned.
 */
export function runThenRepro(release: OpenclawRelease, seed: number, parts: readonly OpenclawGatewayPart[], codes: string, options: RunThenReproOptions = {}): string {
  const { scenario = 'chaos', timeoutMs = 300_000, verdict = 'pass' } = options;
  const ran = cli(['run', scenario, '--seed', String(seed), '--openclaw', `${release}:${parts.join(',')}`, '--json'], {}, timeoutMs);
  if (verdict === 'pass') expect(ran.status, ran.stderr).toBe(0);
  const json = JSON.parse(ran.stdout) as { seed: string; traceHash: string };
  expect(decodeSeedString(json.seed).openclaw).toEqual({ release, parts: [...parts] });
  // `~r<n>`: the revision of the release's table of the parts around (surroundings.ts), when it sets anything.
  expect(json.seed).toMatch(new RegExp(`@oc-${release.replace(/\./g, '_')}~${codes.replace(/\+/g, '\\+')}(?:~r\\d+)?\\.`));
  const again = cli(['repro', json.seed, '--json'], {}, timeoutMs);
  expect(again.status, again.stderr).toBe(ran.status);
  expect((JSON.parse(again.stdout) as { traceHash: string }).traceHash).toBe(json.traceHash);
  return json.traceHash;
}
