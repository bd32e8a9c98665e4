// Around a release's parts (issue 43 item 5, sim/real/openclaw/surroundings.ts) the model follows the release where
// docs/MODEL.md knows how it behaves, not the fixed model's defences: 2026.4.24's mirror appends without the write
// lock, its node events dedupe in memory, its heartbeat runs as released; 2026.7.1's mirror checks the current file and
// its chat.send dedupes in memory. The rest of the fixed model's defences stay and are named in `list` (text and JSON)
// and in every report. A seed string keeps its meaning: a tag made before the table replays with the fixed model.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { codeUnderTest } from '../../sim/cli/real-code.ts';
import { openclawChoiceOfTag, openclawTag, parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawPinnedReleases } from '../../sim/real/openclaw/releases.ts';
import { aroundTheParts, openclawSurroundingsOf, openclawSurroundingsRevision } from '../../sim/real/openclaw/surroundings.ts';
import type { ModelKnobs } from '../../src/index.ts';
import { cli } from './support.ts';

/** A plan's knobs with every second writer, client and heartbeat run at the fixed model's values. */
const fixed: Partial<ModelKnobs> = {
  deliveryMirror: 'on',
  gatewayAppend: 'off',
  clients: { sessions: ['agent:main:chat:0'], dedupe: 'durable', replay: 'after' },
  heartbeatRun: { mode: 'gateway', timeoutMs: 30_000, fallbacks: 1, retryMs: 10_000 },
};

describe('the table of the parts around the real ones', () => {
  it("2026.4.24: the mirror unlocked, the lock's unguarded reclaim, exec dedupe in memory, the last-text queue and the heartbeat run as released", () => {
    const alone = aroundTheParts(parseOpenclawChoice('2026.4.24:ma'), { bugs: [], knobs: fixed });
    expect(alone.setup.knobs.deliveryMirror).toBe('unlocked');
    expect(alone.setup.knobs.lockReclaim).toBe('unguarded');
    expect(alone.setup.knobs.heartbeatRun?.mode).toBe('openclaw');
    expect(alone.setup.knobs.clients?.dedupe).toBe('durable');
    expect([...alone.setup.bugs].sort()).toEqual(['exec-dedupe-memory', 'exec-replay']);
    expect(alone.applied.map((setting) => setting.id)).toEqual(['mirror-unlocked', 'lock-reclaim-unguarded', 'exec-dedupe-in-memory', 'queue-last-text', 'heartbeat-run-as-released']);
    // Every part real: the release's own queue, node events and lock stand for their settings.
    const bare = aroundTheParts(parseOpenclawChoice('2026.4.24'), { bugs: [], knobs: fixed });
    expect(bare.setup.bugs).toEqual([]);
    expect(bare.setup.knobs.lockReclaim).toBeUndefined();
    expect(bare.setup.knobs.deliveryMirror).toBe('unlocked');
    expect(bare.defences.map((defence) => defence.id)).not.toContain('mirror-fsync');
    expect(bare.defences.map((defence) => defence.id)).toContain('run-attempt-lock-with-mirror-only');
  });

  it("2026.7.1: the mirror's key check of the current file and chat.send's dedupe in memory; durable exec keys stay without ne", () => {
    const choice = parseOpenclawChoice('2026.7.1:se,hw');
    const around = aroundTheParts(choice, { bugs: [], knobs: fixed });
    expect(around.setup.knobs.deliveryMirror).toBe('current-file');
    expect(around.setup.knobs.clients?.dedupe).toBe('memory');
    expect(around.setup.knobs.heartbeatRun?.mode).toBe('gateway');
    expect(around.setup.bugs).toEqual([]);
    expect(around.defences.map((defence) => defence.id)).toEqual(expect.arrayContaining(['durable-exec-keys', 'held-heartbeat-row', 'lock-claimed-reclaim']));
    expect(aroundTheParts(parseOpenclawChoice('2026.7.1'), { bugs: [], knobs: fixed }).defences.map((defence) => defence.id)).not.toContain('durable-exec-keys');
  });

  it('applies a setting only over the fixed value it replaces: a sabotage a plan switched on, or a mirror that is off, stays', () => {
    const sabotaged = aroundTheParts(parseOpenclawChoice('2026.4.24:ma'), { bugs: [], knobs: { deliveryMirror: 'unkeyed', heartbeatRun: { ...fixed.heartbeatRun, mode: 'gateway-no-retry' } as ModelKnobs['heartbeatRun'] } });
    expect(sabotaged.setup.knobs.deliveryMirror).toBe('unkeyed');
    expect(sabotaged.setup.knobs.heartbeatRun?.mode).toBe('gateway-no-retry');
    const off = aroundTheParts(parseOpenclawChoice('2026.4.24:ma'), { bugs: [], knobs: { deliveryMirror: 'off' } });
    expect(off.setup.knobs).toEqual({ deliveryMirror: 'off' });
    expect(off.applied.map((setting) => setting.id)).toEqual(['exec-dedupe-in-memory', 'queue-last-text']);
  });

  it("keeps the fixed model around the parts for a choice that asks (a seed string made before the table)", () => {
    const before = aroundTheParts({ release: '2026.4.24', parts: ['mirror-append'], around: 'model' }, { bugs: [], knobs: fixed });
    expect(before.setup).toEqual({ bugs: [], knobs: fixed });
    expect(before.revision).toBeNull();
    expect(before.defences.map((defence) => defence.id)).toContain('mirror-unlocked');
  });

  it('the SQLite-era releases set nothing: every defence is listed, the durable exec keys unless their node events run', () => {
    for (const release of ['2026.8.1', '2026.9.6'] as const) {
      const around = aroundTheParts(parseOpenclawChoice(release), { bugs: [], knobs: fixed });
      expect(around.setup.knobs).toEqual(fixed);
      expect(around.defences.map((defence) => defence.id)).toEqual(expect.arrayContaining(['jsonl-stores-for-sqlite', 'held-heartbeat-row']));
      expect(around.defences.map((defence) => defence.id)).not.toContain('durable-exec-keys');
      const withoutEvents = aroundTheParts(parseOpenclawChoice(`${release}:se,hw,om`), { bugs: [], knobs: fixed });
      expect(withoutEvents.defences.map((defence) => defence.id)).toContain('durable-exec-keys');
    }
  });

  it('docs/MODEL.md "Around the real parts" names every setting of the table, by release', () => {
    const model = readFileSync('docs/MODEL.md', 'utf8');
    const section = model.slice(model.indexOf('### Around the real parts'), model.indexOf('\n## ', model.indexOf('### Around the real parts')));
    expect(section.length).toBeGreaterThan(100);
    for (const release of openclawPinnedReleases) {
      for (const setting of openclawSurroundingsOf(release).settings) expect(section, `${release} ${setting.id}`).toMatch(new RegExp(`\\| ${release.replace(/\./g, '\\.')} \\|[^\\n]*\`${setting.id}\``));
    }
  });
});

describe('a seed string keeps its meaning', () => {
  it("a new tag names the table's revision; a tag made before it means the fixed model around the parts; another revision is refused", () => {
    const r = `~r${openclawSurroundingsRevision}`;
    expect(openclawTag(parseOpenclawChoice('2026.4.24:ma'))).toBe(`oc-2026_4_24~ma${r}`);
    expect(openclawTag(parseOpenclawChoice('2026.7.1:se,hw,ne'))).toBe(`oc-2026_7_1~se+hw+ne${r}`);
    expect(openclawChoiceOfTag(`oc-2026_4_24~ma${r}`)).toEqual({ release: '2026.4.24', parts: ['mirror-append'] });
    expect(openclawChoiceOfTag('oc-2026_4_24~ma')).toEqual({ release: '2026.4.24', parts: ['mirror-append'], around: 'model' });
    expect(openclawTag({ release: '2026.4.24', parts: ['mirror-append'], around: 'model' })).toBe('oc-2026_4_24~ma');
    expect(openclawChoiceOfTag(`oc-2026_4_24~ma~r${openclawSurroundingsRevision + 1}`)).toBeUndefined();
    // A release whose table sets nothing writes no revision: its strings mean the same either way.
    expect(openclawTag(parseOpenclawChoice('2026.9.6'))).toBe('oc-2026_9_6~se+hw+ne+om+ma');
    expect(openclawChoiceOfTag('oc-2026_9_6~se+hw+ne+om+ma')).toEqual({ release: '2026.9.6', parts: ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge', 'mirror-append'] });
    // A string made before the mirror append ran in the SQLite era keeps its parts.
    expect(openclawChoiceOfTag('oc-2026_9_6~se+hw+ne+om')).toEqual({ release: '2026.9.6', parts: ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge'] });
    // A string made before node-events ran in the SQLite era keeps its parts.
    expect(openclawChoiceOfTag('oc-2026_9_6~se+hw+om')).toEqual({ release: '2026.9.6', parts: ['system-events', 'heartbeat-wake', 'orphan-merge'] });
    expect(openclawChoiceOfTag(`oc-2026_9_6~se+hw+om${r}`)).toBeUndefined();
  });
});

describe('list and the reports name the defences in force', () => {
  it('a report names what ran as the release around the parts and the model defences in force', () => {
    const code = codeUnderTest({ openclaw: parseOpenclawChoice('2026.7.1:se,hw'), sessionManager: 'model', custom: [] }, []);
    expect(code.text).toContain('model defences in force: ');
    expect(code.text).toContain('durable exec keys (src/gateway.ts)');
    expect(code.openclawAround?.defences.map((defence) => defence.id)).toContain('durable-exec-keys');
    const before = codeUnderTest({ openclaw: { release: '2026.4.24', parts: ['mirror-append'], around: 'model' }, sessionManager: 'model', custom: [] }, []);
    expect(before.text).toContain("around them the fixed model's defences");
    expect(before.openclawAround?.revision).toBeNull();
    expect(codeUnderTest({ sessionManager: 'model', custom: [] }, []).openclawAround).toBeNull();
  });

  it('`list` shows, per release, what follows the release around the parts and the model defences in force, in text and JSON', () => {
    const text = cli(['list'], { NO_COLOR: '1' });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/2026\.4\.24[^]*around the parts as the release: mirror unlocked[^]*model defences in force: [^\n]*fsynced mirror append \(src\/delivery-mirror\.ts\) \[unless ma runs\]/);
    expect(text.stdout).toMatch(/2026\.7\.1[^]*model defences in force: [^\n]*durable exec keys \(src\/gateway\.ts\) \[unless ne runs\]/);
    const json = JSON.parse(cli(['list', '--json']).stdout) as { openclaw: { release: string; around: { revision: number; settings: { id: string }[]; defences: { id: string; why: string }[] } }[] };
    const of = (release: string) => json.openclaw.find((entry) => entry.release === release)?.around;
    expect(of('2026.4.24')?.settings.map((setting) => setting.id)).toContain('mirror-unlocked');
    expect(of('2026.9.6')?.settings).toEqual([]);
    expect(of('2026.9.6')?.defences.map((defence) => defence.id)).toContain('durable-exec-keys');
    expect(of('2026.7.1')?.revision).toBe(openclawSurroundingsRevision);
  });
});
