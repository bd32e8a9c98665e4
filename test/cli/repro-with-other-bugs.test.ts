// `repro <seed> --bugs none|<ids>`: a reviewer checks a fix against the exact failing plan. The plan is the seed
// string's; only the bug set changes, and the switched run has a seed string of its own that replays it.
import { describe, expect, it } from 'vitest';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { cli } from './support.ts';

interface RunJson {
  seed: string;
  bugs: string[];
  verdict: string;
  traceHash: string;
}

describe('repro with another bug set', () => {
  const failing = JSON.parse(cli(['run', 'send-mid-turn', '--seed', '2', '--bugs', 'send-flag', '--json']).stdout) as RunJson;

  it('--bugs none replays the same plan with every bug off, and passes', () => {
    expect(failing.verdict).toBe('fail');
    const fixed = cli(['repro', failing.seed, '--bugs', 'none', '--json']);
    expect(fixed.status).toBe(0);
    const json = JSON.parse(fixed.stdout) as RunJson;
    expect(json.bugs).toEqual([]);
    expect(json.verdict).toBe('pass');
    const [before, after] = [decodeSeedString(failing.seed), decodeSeedString(json.seed)];
    expect({ scenario: after.scenario, seed: after.seed, path: after.path }).toEqual({ scenario: before.scenario, seed: before.seed, path: before.path });
    expect(after.bugs).toEqual([]);
    const again = cli(['repro', json.seed, '--json']);
    expect((JSON.parse(again.stdout) as RunJson).traceHash).toBe(json.traceHash);
  });

  it('--bugs <ids> switches other bugs on over the same plan; the same bug set replays the original', () => {
    const same = JSON.parse(cli(['repro', failing.seed, '--bugs', 'send-flag', '--json']).stdout) as RunJson;
    expect(same).toEqual(failing);
    const other = cli(['repro', failing.seed, '--bugs', 'send-dup,send-flag', '--json']);
    expect((JSON.parse(other.stdout) as RunJson).bugs).toEqual(['send-dup', 'send-flag']);
  });

  it('an unknown bug id is refused with exit 2', () => {
    const result = cli(['repro', failing.seed, '--bugs', 'nope']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/unknown bug id "nope"/);
  });
});
