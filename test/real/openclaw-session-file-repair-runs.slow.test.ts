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
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { openclawMissing } from './openclaw-support.ts';
import { runThenRepro, runTwiceUnderEachRelease } from './openclaw-runs.ts';

const missing = openclawMissing('--openclaw session-file-repair run tests');

/**
 * Chaos plans (the first plan of these seeds, the chaos generator of b46a777) in which a power loss tears the
 * transcript and the next attempt repairs it: with the model at 115.5 s (seed 1) and 153.7 s (seed 21); with each
 * release's repair in the same plans at the same moments (the release's file operations take other disk latencies,
 * so the runs drift apart later).
 */
const seeds = [1, 21];

describe.skipIf(missing)('--openclaw session-file-repair: the release repairs a torn transcript in a run', () => {
  let inProcess = new Map<string, string>();

  it('the release repairs, and a run gives the same trace hash twice in one process, for each release', async () => {
    inProcess = await runTwiceUnderEachRelease(seeds, () => ['session-file-repair'], ({ release, result, label }) => {
      const repaired = result.sim.trace.events.filter((event) => event.kind === 'model.transcript-repaired');
      expect(repaired.length, `${label}: a repair`).toBeGreaterThan(0);
      const backup = (repaired[0]?.fields as { backup?: unknown }).backup;
      // 2026.4.24 keeps `<file>.bak-<pid>-<epoch ms>` (the simulated pid, 1000 + incarnation); 2026.7.1 removes it.
      if (release === '2026.4.24') expect(String(backup)).toMatch(/\.jsonl\.bak-10\d\d-17672\d{8}$/);
      else expect(backup).toBe(null);
      expect(result.verdict, `${label}: ${result.violations.map((violation) => violation.invariant).join(', ')}`).toBe('pass');
    });
  }, 900_000);

  it("the finding: a power loss just after the release's repair empties the transcript (no fsync), where the model's keeps it", async () => {
    // docs/MODEL.md, "The session-file repair, real": the shrunk counterexample of `fuzz --scenario chaos --seed 1
    // --openclaw 2026.7.1:session-file-repair` (run 72), and the same plan with 2026.4.24's repair.
    const plan = 'none.1076620614.0-24-1-1-1-1-1-1-1-3-0-0-0-1-1-1-1-1-5-4-6-9-9-6-6-6-6-6-7-7-8-6-7-7-7-7-7-9-10-8-7-8-8-8-8-8-8.0_1_0-75a0f6';
    const findings = [`gs2.chaos@oc-2026_7_1~fr.${plan}.3317fe39`, `gs2.chaos@oc-2026_4_24~fr.${plan}.df97d4e1`];
    const sql = await loadSqlJs();
    const chaos = findScenario('chaos');
    if (chaos === undefined) throw new Error('chaos is built in');
    for (const seedString of findings) {
      const decoded = decodeSeedString(seedString);
      const spec = generateSpec(chaos, decoded.bugs, decoded.seed, decoded.path);
      const real = await runSpec(spec, { sql, ...(decoded.openclaw === undefined ? {} : { openclaw: decoded.openclaw }) });
      expect(real.violations.map((violation) => violation.invariant), seedString).toContain('transcript-consistent');
      // The release renamed its unsynced temporary over the transcript; the power loss left nothing of it.
      const emptied = real.sim.trace.events.find((event) => event.kind === 'disk.crash' && (event.fields as { path?: string; keptBytes?: number }).path?.endsWith('chat%3A0.jsonl') === true && (event.fields as { keptBytes?: number }).keptBytes === 0);
      expect(emptied, seedString).toBeDefined();
      real.sim.dispose();
    }
    const model = await runSpec(generateSpec(chaos, [], 1076620614, decodeSeedString(findings[0] as string).path), { sql });
    expect(model.verdict).toBe('pass');
    model.sim.dispose();
  }, 900_000);

  it('the seed string records ~fr; run and repro in fresh processes (under Node 24) give the hash of this process', () => {
    for (const release of openclawReleases) {
      const seed = seeds[0] as number;
      const hash = runThenRepro(release, seed, ['session-file-repair'], 'fr', { timeoutMs: 400_000 });
      // The same trace on the Node this test runs on (in-process, the first test) and on the workspace's Node 24.
      const here = inProcess.get(`${release}/${seed}`);
      if (here !== undefined) expect(hash, `${release}: the hash of this process (${process.version})`).toBe(here);
    }
  }, 900_000);
});
