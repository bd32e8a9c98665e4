// `--openclaw <release>:<parts>` takes each part by its name or by the short code a seed-string tag writes
// (`2026.4.24:se,hw` is `2026.4.24:system-events,heartbeat-wake`, and names and codes mix); the choice, and so the
// seed string, is the same either way. An unknown part is refused with every part listed with its code.
import { describe, expect, it } from 'vitest';
import { OpenclawChoiceError, openclawGatewayParts, openclawPartCodes, openclawTag, parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawReleases } from '../../sim/real/openclaw/releases.ts';
import { cli } from './support.ts';

describe('OpenClaw part codes', () => {
  it('name the same parts as the part names, in every release', () => {
    for (const release of openclawReleases) {
      for (const part of openclawGatewayParts) {
        const withPart = (name: string) => [name, ...(part === 'node-events' ? ['se', 'hw'] : []), ...(part === 'mirror-append' ? ['wl'] : [])].join(',');
        expect(parseOpenclawChoice(`${release}:${withPart(openclawPartCodes[part])}`)).toEqual(parseOpenclawChoice(`${release}:${withPart(part)}`));
      }
    }
    expect(parseOpenclawChoice('2026.4.24:se,hw')).toEqual({ release: '2026.4.24', parts: ['system-events', 'heartbeat-wake'] });
    expect(parseOpenclawChoice('2026.4.24:se, heartbeat-wake,ne')).toEqual({ release: '2026.4.24', parts: ['system-events', 'heartbeat-wake', 'node-events'] });
    expect(openclawTag(parseOpenclawChoice('2026.7.1:ma,wl'))).toBe('oc-2026_7_1~wl+ma~r1');
  });

  it('are held to the same rules as names (node-events needs se and hw)', () => {
    expect(() => parseOpenclawChoice('2026.4.24:ne')).toThrow(OpenclawChoiceError);
    expect(() => parseOpenclawChoice('2026.4.24:ne')).toThrow(/node-events runs with system-events and heartbeat-wake/);
  });

  it('are listed with the parts when a part is unknown', () => {
    expect(() => parseOpenclawChoice('2026.4.24:se,xx')).toThrow('unknown OpenClaw part "xx" (parts, by name or code: system-events (se), heartbeat-wake (hw), node-events (ne)');
    expect(() => parseOpenclawChoice('2026.4.24:SE')).toThrow(/unknown OpenClaw part "SE"/);
  });

  it('reach the command line: a code passes its parser, an unknown one is refused (exit 2, one line)', () => {
    // A scenario that does not exist ends the command right after the options were parsed, whatever is installed.
    const known = cli(['run', 'no-such-scenario', '--openclaw', '2026.4.24:se,hw']);
    expect(known.status).toBe(2);
    expect(known.stderr).not.toContain('unknown OpenClaw part');
    const unknown = cli(['run', 'no-such-scenario', '--openclaw', '2026.4.24:se,xx']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('unknown OpenClaw part "xx" (parts, by name or code: system-events (se)');
  });
});
