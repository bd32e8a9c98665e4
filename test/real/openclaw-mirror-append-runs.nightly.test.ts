// `--openclaw <release>:mirror-append` runs a pinned release's appendAssistantMessageToSessionTranscript in place of the
// model's append for the gateway's delivery mirror (sim/real/openclaw/mirror-append.ts), 2026.7.1's with the release's
// own session write lock (`wl`, which its append takes): in chaos plans with the delivery mirror on, every mirror entry
// is the release's, and a run gives the same trace hash twice in one process and in a fresh one (`repro` of its seed
// string, which records `~ma`, or `~wl+ma`), and nothing reaches the host.
import { describe, expect, it } from 'vitest';
import type { OpenclawGatewayPart } from '../../sim/real/openclaw/choice.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';
import { runThenRepro, runTwiceUnderEachRelease } from './openclaw-runs.ts';
import { isJulyLine } from '../../sim/real/openclaw/releases.ts';

const missing = openclawMissing('--openclaw mirror-append run tests');

/**
 * Chaos plans with the delivery mirror on (frozen: the first plans of seeds 13 and 17 on the generator before issue
 * 44): 13 (the runner and the mirror contend for the lock) and 17 (a /clear rotates a session, so the store the release
 * reads is brought to the new one, and a mirror finds the latest assistant message already holding its text).
 */
const plans = ['chaos-13-before-issue-44', 'chaos-17-before-issue-44'];
/** A chaos seed whose first plan has the delivery mirror on, for the command line (`run chaos --seed`). */
const cliSeed = 2;

/** The parts each release runs the mirror append with (2026.7.1's append takes the release's own lock). */
const partsOf = (release: OpenclawRelease): OpenclawGatewayPart[] => (isJulyLine(release) ? ['session-write-lock', 'mirror-append'] : ['mirror-append']);
const codesOf = (release: OpenclawRelease): string => (isJulyLine(release) ? 'wl+ma' : 'ma');

describe.skipIf(missing)('--openclaw mirror-append: the release appends the mirror entries in a run', () => {
  it('every mirror entry is the release’s, and a run gives the same trace hash twice in one process, for each release', async () => {
    await runTwiceUnderEachRelease(plans, partsOf, ({ release, plan, spec, result, label }) => {
      expect(spec.plan.secondWriters?.deliveryMirror, `${label} runs the mirror`).toBe('on');
      expect(result.verdict, `${label}: ${JSON.stringify(result.violations)}`).toBe('pass');
      const mirrors = result.sim.trace.events.filter((event) => event.kind === 'model.mirror-appended' || event.kind === 'model.mirror-deduped');
      expect(mirrors.length, label).toBeGreaterThan(20);
      expect(mirrors.every((event) => event.fields.real === true)).toBe(true);
      if (plan === plans[1]) {
        expect(result.sim.trace.events.filter((event) => event.kind === 'model.mirror-store-rebound').length, `${release}: the rotation`).toBe(1);
        expect(mirrors.filter((event) => event.fields.rule === 'latest-equivalent-assistant').length, `${release}: the latest equivalent`).toBeGreaterThan(0);
      }
      // The fixed model around the part (its mirror locks): the release's append itself, under gatesim's callers.
      // 2026.4.24's unlocked mirror around it is openclaw-around-the-parts-runs.slow.test.ts's.
    }, 'model');
  }, 900_000);

  it('the seed string records the part, and repro in a fresh process gives the same trace hash', () => {
    // From the command line the run follows the release around the part (2026.4.24's mirror unlocked), on today's chaos
    // plan: whatever the verdict, repro gives the same.
    for (const release of openclawReleases) runThenRepro(release, cliSeed, partsOf(release), codesOf(release), { verdict: 'any' });
  }, 600_000);
});
