// `--openclaw <release>:session-file-repair` runs a pinned release's repairSessionFileIfNeeded in place of the model's
// at each run attempt's open (sim/real/openclaw/session-file-repair.ts): chaos plans whose power losses tear the
// transcript's last append are repaired by the release (its backup named by the simulated pid and wall clock in
// 2026.4.24; removed in 2026.7.1), a run gives the same trace hash twice in one process, and the command line, which
// re-runs itself under the workspace's Node 24 (the release's engines exclude Node 20), records `~fr` in the seed
// string and gives the same hash in a fresh `run` and a fresh `repro` as in this process.
// The finding of the chaos campaign is replayed too: a power loss just after either release's repair (no fsync of
// its temporary before the rename) leaves the transcript empty, where the model's repair keeps it (docs/MODEL.md).
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { openclawMissing } from './openclaw-support.ts';
import { frozenSpec, runThenRepro, runTwiceUnderEachRelease } from './openclaw-runs.ts';

const missing = openclawMissing('--openclaw session-file-repair run tests');

/**
 * Chaos plans in which a power loss tears the transcript and the next attempt repairs it (frozen: the first plans of
 * seeds 1 and 21 on the generator before issue 44); each release's repair in the same plans at the same moments (the
 * release's file operations take other disk latencies, so the runs drift apart later).
 */
const plans = ['chaos-1-before-issue-44', 'chaos-21-before-issue-44'];
/** A chaos seed for the command line (`run chaos --seed`): whatever its plan, run and repro agree, and so does this process. */
const cliSeed = 1;

describe.skipIf(missing)('--openclaw session-file-repair: the release repairs a torn transcript in a run', () => {
  it('the release repairs, and a run gives the same trace hash twice in one process, for each release', async () => {
    await runTwiceUnderEachRelease(plans, () => ['session-file-repair'], ({ release, result, label }) => {
      const repaired = result.sim.trace.events.filter((event) => event.kind === 'model.transcript-repaired');
      expect(repaired.length, `${label}: a repair`).toBeGreaterThan(0);
      const backup = (repaired[0]?.fields as { backup?: unknown }).backup;
      // 2026.4.24 keeps `<file>.bak-<pid>-<epoch ms>` (the simulated pid, 1000 + incarnation); 2026.7.1 removes it.
      if (release === '2026.4.24') expect(String(backup)).toMatch(/\.jsonl\.bak-10\d\d-17672\d{8}$/);
      else expect(backup).toBe(null);
      expect(result.verdict, `${label}: ${result.violations.map((violation) => violation.invariant).join(', ')}`).toBe('pass');
      // The fixed model around the part: the release's repair itself.
    }, 'model');
  }, 900_000);

  it("the finding: a power loss just after the release's repair empties the transcript (no fsync), where the model's keeps it", async () => {
    // docs/MODEL.md, "The session-file repair, real": the shrunk counterexample of `fuzz --scenario chaos --seed 1
    // --openclaw 2026.7.1:session-file-repair` (run 72, on the generator before issue 44; its plan frozen), with
    // 2026.7.1's repair and with 2026.4.24's.
    const spec = frozenSpec('power-loss-just-after-the-releases-session-file-repair');
    const sql = await loadSqlJs();
    for (const release of ['2026.7.1', '2026.4.24'] as const) {
      const seedString = `${release} on the frozen plan`;
      // As the strings were made: the fixed model around the part (before the table of surroundings.ts).
      const real = await runSpec(spec, { sql, openclaw: { release, parts: ['session-file-repair'], around: 'model' } });
      expect(real.violations.map((violation) => violation.invariant), seedString).toContain('transcript-consistent');
      // The release renamed its unsynced temporary over the transcript; the power loss left nothing of it.
      const emptied = real.sim.trace.events.find((event) => event.kind === 'disk.crash' && (event.fields as { path?: string; keptBytes?: number }).path?.endsWith('chat%3A0.jsonl') === true && (event.fields as { keptBytes?: number }).keptBytes === 0);
      expect(emptied, seedString).toBeDefined();
      real.sim.dispose();
    }
    const model = await runSpec(spec, { sql });
    expect(model.verdict).toBe('pass');
    model.sim.dispose();
  }, 900_000);

  it('the seed string records ~fr; run and repro in fresh processes (under Node 24) give the hash of this process', async () => {
    const chaos = findScenario('chaos');
    if (chaos === undefined) throw new Error('chaos is built in');
    const sql = await loadSqlJs();
    for (const release of openclawReleases) {
      const hash = runThenRepro(release, cliSeed, ['session-file-repair'], 'fr', { timeoutMs: 400_000, verdict: 'any' });
      // The same trace on the Node this test runs on (in this process) and on the workspace's Node 24.
      const here = await runSpec(generateSpec(chaos, [], cliSeed, undefined), { sql, openclaw: { release, parts: ['session-file-repair'] } });
      expect(hash, `${release}: the hash of this process (${process.version})`).toBe(here.traceHash);
      here.sim.dispose();
    }
  }, 900_000);
});
