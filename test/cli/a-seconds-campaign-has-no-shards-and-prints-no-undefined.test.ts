// `--seconds` bounds a campaign by time, so it has no fixed set of runs to split: `--shard` with it is bad usage (exit
// 2, one line, nothing started). A time-bounded campaign prints no `undefined` in its text, its JSON or its progress.
import { describe, expect, it } from 'vitest';
import { cli } from './support.ts';

describe('fuzz --seconds', () => {
  it('with --shard is refused: exit 2, one line on stderr, nothing on stdout', () => {
    const result = cli(['fuzz', '--scenario', 'send-mid-turn', '--seconds', '1', '--shard', '1/2', '--seed', '1']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--shard needs --runs, not --seconds/);
  }, 120_000);

  it('prints no undefined, in text or in JSON', () => {
    for (const json of [[], ['--json']]) {
      const result = cli(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--seconds', '1', '--seed', '3', ...json]);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(json.length === 0 ? /1s per scenario/ : /^\{"runs":/);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/undefined|NaN/);
    }
  }, 120_000);
});
