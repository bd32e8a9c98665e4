// What a bare `--openclaw <release>` runs (sim/real/openclaw/choice.ts openclawBarePartsOf): every part of the release.
// 2026.7.1's mirror append was left out of it until its chaos campaign's stalled run was explained (issue 22: the
// release's AsyncLocalStorages, one set per instance, slowed every promise of the campaign's process; fixed in the
// hooks). The seed string of a bare choice names every part, so a string made before keeps its meaning.
import { describe, expect, it } from 'vitest';
import { openclawBarePartsOf, openclawChoiceOfTag, openclawPartsOf, openclawTag, parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawReleases } from '../../sim/real/openclaw/releases.ts';

describe('a bare --openclaw <release>', () => {
  it('runs every part the release can run, 2026.7.1 its mirror append with its write lock included', () => {
    for (const release of openclawReleases) {
      expect(openclawBarePartsOf(release)).toEqual(openclawPartsOf(release));
      expect(parseOpenclawChoice(release).parts).toEqual([...openclawPartsOf(release)]);
    }
    const bare = parseOpenclawChoice('2026.7.1');
    expect(bare.parts).toContain('mirror-append');
    expect(bare.parts).toContain('session-write-lock');
    // `~r1`: the run follows 2026.7.1 around its parts as the release table's first revision says (surroundings.ts).
    expect(openclawTag(bare)).toBe('oc-2026_7_1~se+hw+ne+om+fr+wl+ma~r1');
    // A seed string of the former bare choice (without ma) still names its parts and replays them.
    expect(openclawChoiceOfTag('oc-2026_7_1~se+hw+ne+om+fr+wl')?.parts).not.toContain('mirror-append');
    // And, made before the release table, it keeps the fixed model around its parts.
    expect(openclawChoiceOfTag('oc-2026_7_1~se+hw+ne+om+fr+wl')?.around).toBe('model');
  });
});
