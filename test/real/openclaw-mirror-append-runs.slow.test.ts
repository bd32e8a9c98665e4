// `--openclaw <release>:mirror-append` runs a pinned release's appendAssistantMessageToSessionTranscript in place of the
// model's append for the gateway's delivery mirror (sim/real/openclaw/mirror-append.ts), 2026.7.1's with the release's
// own session write lock (`wl`, which its append takes): in chaos plans with the delivery mirror on, every mirror entry
// is the release's, and a run gives the same trace hash twice in one process and in a fresh one (`repro` of its seed
// string, which records `~ma`, or `~wl+ma`), and nothing reaches the host.
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { OpenclawGatewayPart } from '../../sim/real/openclaw/choice.ts';
import { openclawInstalled, openclawMissingMessage, type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { cli } from '../cli/support.ts';

const missing = !openclawReleases.every((release) => openclawInstalled(release));
// CI installs openclaw/ (.ci/run), so there a missing workspace is a broken install, not a reason to skip.
if (missing && process.env.CI === 'true') throw new Error(openclawMissingMessage);
if (missing) process.stderr.write(`skipping the --openclaw mirror-append run tests: ${openclawMissingMessage}\n`);

/**
 * Chaos plans (the first plan of each seed) with the delivery mirror on: 13 (the runner and the mirror contend for the
 * lock) and 17 (a /clear rotates a session, so the store the release reads is brought to the new one, and a mirror
 * finds the latest assistant message already holding its text: once with 2026.4.24, twice with 2026.7.1).
 */
const seeds = [13, 17];

/** The parts each release runs the mirror append with (2026.7.1's append takes the release's own lock). */
const partsOf = (release: OpenclawRelease): OpenclawGatewayPart[] => (release === '2026.7.1' ? ['session-write-lock', 'mirror-append'] : ['mirror-append']);
const codesOf = (release: OpenclawRelease): string => (release === '2026.7.1' ? 'wl+ma' : 'ma');

describe.skipIf(missing)('--openclaw mirror-append: the release appends the mirror entries in a run', () => {
  it('every mirror entry is the release’s, and a run gives the same trace hash twice in one process, for each release', async () => {
    const sql = await loadSqlJs();
    const chaos = findScenario('chaos');
    if (chaos === undefined) throw new Error('chaos is built in');
    for (const release of openclawReleases) {
      for (const seed of seeds) {
        const spec = generateSpec(chaos, [], seed, undefined);
        expect(spec.plan.secondWriters?.deliveryMirror, `seed ${seed} runs the mirror`).toBe('on');
        const hashes: string[] = [];
        for (let round = 0; round < 2; round++) {
          const result = await runSpec(spec, { sql, openclaw: { release, parts: partsOf(release) } });
          hashes.push(result.traceHash);
          expect(result.verdict, `${release} seed ${seed}: ${JSON.stringify(result.violations)}`).toBe('pass');
          const mirrors = result.sim.trace.events.filter((event) => event.kind === 'model.mirror-appended' || event.kind === 'model.mirror-deduped');
          expect(mirrors.length, `${release} seed ${seed}`).toBeGreaterThan(20);
          expect(mirrors.every((event) => event.fields.real === true)).toBe(true);
          if (seed === 17) {
            expect(result.sim.trace.events.filter((event) => event.kind === 'model.mirror-store-rebound').length, `${release}: the rotation`).toBe(1);
            expect(mirrors.filter((event) => event.fields.rule === 'latest-equivalent-assistant').length, `${release}: the latest equivalent`).toBeGreaterThan(0);
          }
          result.sim.dispose();
        }
        expect(hashes[1], `${release} seed ${seed}`).toBe(hashes[0]);
      }
    }
  }, 900_000);

  it('the seed string records the part, and repro in a fresh process gives the same trace hash', () => {
    for (const release of openclawReleases) {
      const ran = cli(['run', 'chaos', '--seed', String(seeds[1]), '--openclaw', `${release}:${partsOf(release).join(',')}`, '--json'], {}, 300_000);
      expect(ran.status, ran.stderr).toBe(0);
      const json = JSON.parse(ran.stdout) as { seed: string; traceHash: string };
      expect(decodeSeedString(json.seed).openclaw).toEqual({ release, parts: partsOf(release) });
      expect(json.seed).toContain(`@oc-${release.replace(/\./g, '_')}~${codesOf(release)}.`);
      const again = cli(['repro', json.seed, '--json'], {}, 300_000);
      expect(again.status, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { traceHash: string }).traceHash).toBe(json.traceHash);
    }
  }, 600_000);
});
