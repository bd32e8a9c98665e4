// A run under `--openclaw 2026.4.24` with the release's mirror append (`ma`) has the release's unlocked mirror around
// it (sim/real/openclaw/surroundings.ts): no mirror entry of the run is appended under the write lock, where the same
// plan with the fixed model around the part (a seed string made before the table, `around: 'model'`) locks every one.
// The run records what it applied and the defences that stayed, and its seed string names the table's revision, so
// `repro` in a fresh process gives the same trace hash.
import { describe, expect, it } from 'vitest';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { OpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawSurroundingsRevision } from '../../sim/real/openclaw/surroundings.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { cli } from '../cli/support.ts';
import { frozenSpec } from './openclaw-runs.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('--openclaw around-the-parts run tests', ['2026.4.24']);

/**
 * A chaos plan with the delivery mirror on in which the runner and the mirror contend for the transcript (frozen: the
 * first plan of seed 13 on the generator before issue 44), and a chaos seed whose first plan today has the mirror on,
 * for the command line.
 */
const plan = 'chaos-13-before-issue-44';
const cliSeed = 2;

async function mirrorsOf(choice: OpenclawChoice): Promise<{ locked: unknown[]; applied: string[]; defences: string[]; verdict: string }> {
  const spec = frozenSpec(plan);
  expect(spec.plan.secondWriters?.deliveryMirror).toBe('on');
  const result = await runSpec(spec, { sql: await loadSqlJs(), openclaw: choice });
  try {
    const appended = result.sim.trace.events.filter((event) => event.kind === 'model.mirror-appended');
    expect(appended.length).toBeGreaterThan(5);
    expect(appended.every((event) => event.fields.real === true)).toBe(true);
    return {
      locked: [...new Set(appended.map((event) => event.fields.locked))],
      applied: (result.realCode.openclawAround?.applied ?? []).map((setting) => setting.id),
      defences: (result.realCode.openclawAround?.defences ?? []).map((defence) => defence.id),
      verdict: `${result.verdict} ${result.violations.map((violation) => violation.invariant).join(',')}`,
    };
  } finally {
    result.sim.dispose();
  }
}

describe.skipIf(missing)('--openclaw 2026.4.24:mirror-append around the part', () => {
  it("has the release's unlocked mirror; the fixed model around the part locks it", async () => {
    const release = await mirrorsOf({ release: '2026.4.24', parts: ['mirror-append'] });
    expect(release.locked).toEqual([false]);
    expect(release.applied).toEqual(expect.arrayContaining(['mirror-unlocked', 'exec-dedupe-in-memory', 'queue-last-text']));
    expect(release.defences).toContain('run-attempt-lock-with-mirror-only');
    expect(release.defences).not.toContain('mirror-fsync');
    // The finding (docs/MODEL.md, "Around the real parts"): the unlocked mirror forks the transcript; locked, it does not.
    expect(release.verdict).toMatch(/^fail .*transcript-consistent/);
    const before = await mirrorsOf({ release: '2026.4.24', parts: ['mirror-append'], around: 'model' });
    expect(before.locked).toEqual([true]);
    expect(before.applied).toEqual([]);
    expect(before.defences).toContain('mirror-unlocked');
    expect(before.verdict).toBe('pass ');
  }, 600_000);

  it('the seed string names the revision and repro in a fresh process gives the same trace hash', () => {
    const ran = cli(['run', 'chaos', '--seed', String(cliSeed), '--openclaw', '2026.4.24:ma', '--json'], {}, 300_000);
    const json = JSON.parse(ran.stdout) as { seed: string; traceHash: string; realCode: { text: string; openclawAround: { applied: { id: string }[] } } };
    expect(json.seed).toContain(`@oc-2026_4_24~ma~r${openclawSurroundingsRevision}.`);
    expect(decodeSeedString(json.seed).openclaw).toEqual({ release: '2026.4.24', parts: ['mirror-append'] });
    expect(json.realCode.openclawAround.applied.map((setting) => setting.id)).toContain('mirror-unlocked');
    expect(json.realCode.text).toContain('around them as the release: mirror unlocked');
    expect(json.realCode.text).toContain('model defences in force: ');
    const again = cli(['repro', json.seed, '--json'], {}, 300_000);
    expect(again.status, again.stderr).toBe(ran.status);
    expect((JSON.parse(again.stdout) as { traceHash: string }).traceHash).toBe(json.traceHash);
  }, 600_000);
});
