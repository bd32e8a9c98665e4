// `--openclaw <release>` runs a pinned release's system-event queue and heartbeat wakes in place of the model's gateway
// parts, under the same faults and checkers: the adapters hand every decision to the real code (a plan where the two
// releases' dedupe rules differ shows it), a run gives the same trace hash twice in one process and in a fresh one,
// the seed string records the release and its parts and replays them, workers run what one worker runs, and a
// missing workspace or a bad value is exit 2.
import { describe, expect, it } from 'vitest';
import type { EnqueueResult, SystemEventQueuePort } from '../../src/index.ts';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { cli } from '../cli/support.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('--openclaw tests');

/** Enqueue A, B, A (A keyed exec:run-0, B exec:run-1) through a release's adapted queue in a simulated gateway. */
async function abaThroughTheAdapter(release: OpenclawRelease): Promise<{ queued: boolean[]; drained: string[]; escapes: string[] }> {
  const sim = new Simulation({ seed: `openclaw-adapter-${release}`, sql: await loadSqlJs() });
  const parts = openclawGatewayPartsFor(sim, { release, parts: ['system-events'] });
  const out = { queued: [] as boolean[], drained: [] as string[], escapes: parts.escapes };
  sim.spawn('gateway', async (ctx) => {
    const queue = parts.systemEvents?.(ctx, false) as SystemEventQueuePort;
    const enqueue = (text: string, run: string): EnqueueResult => queue.enqueueSystemEvent('agent:main:chat:0', text, { contextKey: `exec:${run}`, trusted: false, execKey: null });
    for (const [text, run] of [['Exec finished run-0', 'run-0'], ['Exec finished run-1', 'run-1'], ['Exec finished run-0', 'run-0']] as const) out.queued.push(enqueue(text, run).queued);
    out.drained = queue.drainSystemEvents('agent:main:chat:0').map((event) => event.text);
  });
  await sim.run();
  sim.dispose();
  return out;
}

describe.skipIf(missing)('--openclaw: real gateway parts in the simulated world', () => {
  it('the adapted queue decides as the release does: 2026.4.24 takes A, B, A (seed 000), 2026.7.1 refuses the second A', async () => {
    const old = await abaThroughTheAdapter('2026.4.24');
    expect(old).toEqual({ queued: [true, true, true], drained: ['Exec finished run-0', 'Exec finished run-1', 'Exec finished run-0'], escapes: [] });
    const fixed = await abaThroughTheAdapter('2026.7.1');
    expect(fixed).toEqual({ queued: [true, true, false], drained: ['Exec finished run-0', 'Exec finished run-1'], escapes: [] });
  });

  it('a run gives the same trace hash twice in one process, for each release', async () => {
    const sql = await loadSqlJs();
    const chaos = findScenario('chaos');
    if (chaos === undefined) throw new Error('chaos is built in');
    for (const release of openclawReleases) {
      for (const seed of [3, 8]) {
        const spec = generateSpec(chaos, [], seed, undefined);
        const hashes = [];
        for (let round = 0; round < 2; round++) {
          const result = await runSpec(spec, { sql, openclaw: { release, parts: ['system-events', 'heartbeat-wake'] } });
          hashes.push(result.traceHash);
          result.sim.dispose();
        }
        expect(hashes[1], `${release} seed ${seed}`).toBe(hashes[0]);
      }
    }
  }, 300_000);

  it('the seed string names the release and its parts, and repro in a fresh process replays it exactly', () => {
    for (const release of openclawReleases) {
      const ran = cli(['run', 'exec-replay', '--seed', '5', '--bugs', 'exec-replay', '--openclaw', `${release}:system-events`, '--json']);
      const json = JSON.parse(ran.stdout) as { seed: string; traceHash: string; verdict: string };
      expect(decodeSeedString(json.seed).openclaw).toEqual({ release, parts: ['system-events'] });
      // `~r1` where the release's table around the parts sets something (surroundings.ts).
      expect(json.seed).toMatch(new RegExp(`@oc-${release.replace(/\./g, '_')}~se(?:~r\\d+)?\\.`));
      const again = cli(['repro', json.seed, '--json']);
      expect(again.status, again.stderr).toBe(ran.status);
      expect((JSON.parse(again.stdout) as { traceHash: string }).traceHash).toBe(json.traceHash);
    }
  }, 300_000);

  it('a campaign finds the same failures with the same seed strings on one and two workers', () => {
    const args = ['fuzz', '--scenario', 'exec-replay', '--bugs', 'exec-replay', '--runs', '20', '--seed', '1', '--openclaw', '2026.4.24:system-events,heartbeat-wake', '--json'];
    const one = cli([...args, '--workers', '1'], {}, 300_000);
    const two = cli([...args, '--workers', '2'], {}, 300_000);
    expect(one.status, one.stderr).toBe(1);
    expect({ ...JSON.parse(two.stdout), wallMs: 0 }).toEqual({ ...JSON.parse(one.stdout), wallMs: 0 });
    expect((JSON.parse(one.stdout) as { failures: { seed: string }[] }).failures[0]?.seed).toMatch(/^gs2\.exec-replay@oc-2026_4_24~se\+hw(?:~r\d+)?\./);
  }, 600_000);
});

describe('--openclaw refuses what it cannot run', () => {
  it('an unpinned release, an unknown part or one the release lacks is exit 2 with one line', () => {
    for (const value of ['2026.7.34', '2026.4.24:nope', '', '2026.7.1:node-events', '2026.4.24:node-events', '2026.9.6:fr', '2026.8.1:se,wl', '2026.9.6:ne']) {
      const result = cli(['run', 'exec-replay', '--seed', '1', '--openclaw', value]);
      expect(result.status, value).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const lacked = cli(['run', 'exec-replay', '--seed', '1', '--openclaw', '2026.9.6:session-write-lock']);
    expect(lacked.stderr).toMatch(/openclaw 2026\.9\.6 cannot run session-write-lock: a no-op/);
  });
});
