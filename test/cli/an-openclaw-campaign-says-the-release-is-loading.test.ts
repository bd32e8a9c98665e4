// A real OpenClaw release loads inside a campaign's first run, for up to about 20 s with nothing else printed: `fuzz
// --openclaw` says so on stderr before that run (also with --json, whose stdout stays the JSON alone), and a campaign
// of the model alone does not. progress.ts releaseLoadingLine is the line, for `run` and `repro` too.
import { describe, expect, it } from 'vitest';
import { releaseLoadingLine } from '../../sim/cli/progress.ts';
import { parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawInstalled } from '../../sim/real/openclaw/releases.ts';
import { cli } from './support.ts';

// The cheapest choice to load: two parts of the smaller release.
const choice = '2026.4.24:system-events,heartbeat-wake';
const line = 'loading OpenClaw 2026.4.24 (system-events, heartbeat-wake) before the first run: up to about 20 s';

describe('fuzz --openclaw', () => {
  it('the line names the release and its parts', () => {
    expect(releaseLoadingLine(parseOpenclawChoice(choice))).toBe(line);
  });

  it.skipIf(!openclawInstalled('2026.4.24'))('prints it on stderr before the first run, also with --json', () => {
    const result = cli(['fuzz', '--scenario', 'send-mid-turn', '--openclaw', choice, '--runs', '1', '--seed', '1', '--json']);
    expect(result.status).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(`fuzz: ${line}`);
    expect(result.stdout).toMatch(/^\{"runs":1,/);
    expect(result.stdout).not.toMatch(/loading OpenClaw/);
  }, 120_000);

  it('a campaign without --openclaw does not print it', () => {
    const result = cli(['fuzz', '--scenario', 'send-mid-turn', '--runs', '1', '--seed', '1']);
    expect(result.status).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/loading OpenClaw/);
  }, 120_000);
});
