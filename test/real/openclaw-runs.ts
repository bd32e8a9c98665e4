// Shared by the tests that run plans with a pinned OpenClaw release's parts in place of the model's
// (`--openclaw <release>:<parts>`): the run of a plan twice in one process (the same trace hash both times), and the
// command line's `run` then `repro` in fresh processes (the seed string records the parts; the same trace hash both
// times).
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { OpenclawGatewayPart } from '../../sim/real/openclaw/choice.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { type RunResult, runSpec } from '../../sim/run/harness.ts';
import type { RunSpec } from '../../sim/run/plan.ts';
import { cli } from '../cli/support.ts';

/** One run of {@link runTwiceUnderEachRelease}: what its `check` is given. */
export interface ReleaseRun {
  release: OpenclawRelease;
  /** The frozen plan's name (test/fixtures/plans/<plan>.json). */
  plan: string;
  spec: RunSpec;
  result: RunResult;
  /** `<release> <plan>`, for the messages of the checks. */
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
 * A frozen plan (test/fixtures/plans/<name>.json): plain data that replays under every build of the same model, so a
 * test that needs a plan of a given shape (the mirror on and contended, a torn transcript to repair) keeps it when the
 * chaos generator changes (the chaos plans here were drawn by the generator before issue 44).
 */
export function frozenSpec(name: string): RunSpec {
  return (JSON.parse(readFileSync(new URL(`../fixtures/plans/${name}.json`, import.meta.url), 'utf8')) as { spec: RunSpec }).spec;
}

/**
 * Runs each frozen plan twice under each release with `parts(release)` in place of the model's ({@link runTwice}),
 * calling `check` on every run. Returns the trace hash by `<release>/<plan>`. With `around: 'model'` the fixed model's
 * defences stay around the parts (a test of a part itself, under the callers gatesim's model gives it) instead of the
 * release's behaviour (sim/real/openclaw/surroundings.ts).
 */
export async function runTwiceUnderEachRelease(
  plans: readonly string[],
  parts: (release: OpenclawRelease) => OpenclawGatewayPart[],
  check: (run: ReleaseRun) => void,
  around?: 'model',
): Promise<Map<string, string>> {
  const hashOf = new Map<string, string>();
  for (const release of openclawReleases) {
    for (const plan of plans) {
      const spec = frozenSpec(plan);
      const label = `${release} ${plan}`;
      hashOf.set(`${release}/${plan}`, await runTwice(spec, release, parts(release), label, (result) => check({ release, plan, spec, result, label }), around));
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
